import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AuditSurface, keysetInstantSql } from '#common';
import { namedStatement, type NamedStatement } from '#persistence';
import type { AuditCallerKind, AuditEntry, AuditOutcome } from './audit.types.js';

/** One row of the trail as read back: an attempt, or one of the escalation timer's own steps. */
export interface AuditRow {
  id: string;
  pending_id: string;
  outcome: AuditOutcome;
  surface: AuditSurface;
  caller_kind: AuditCallerKind;
  caller_user_id: string | null;
  caller_name: string | null;
  rejected: boolean | null;
  reject_reason: string | null;
  detail: string | null;
  at: Date;
  /** The keyset position: `at` at full precision. */
  position: string;
}

const AUDIT_INSERT = namedStatement(
  'audit_insert',
  ['entries'],
  `INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, detail, at)
       SELECT e.attempt_id, e.pending_id, e.outcome, e.surface, e.caller_kind, e.caller_user_id,
              (SELECT u.name FROM users u WHERE u.id = e.caller_user_id), e.rejected, e.reject_reason, e.detail, e.at
         FROM jsonb_to_recordset(:entries::jsonb) AS e(attempt_id text, pending_id text, outcome text, surface text, caller_kind text, caller_user_id text,
                                                 rejected boolean, reject_reason text, detail text, at timestamptz)
        WHERE e.outcome <> 'not_found' OR EXISTS (SELECT 1 FROM clarification_bundles b WHERE b.pending_id = e.pending_id)
       ON CONFLICT (attempt_id) DO UPDATE SET outcome = EXCLUDED.outcome, detail = EXCLUDED.detail
       RETURNING id`,
);

const AUDIT_LIST = namedStatement(
  'audit_list',
  ['pending_id', 'at', 'id', 'limit'],
  `SELECT id::text AS id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, detail, at,
              ${keysetInstantSql('at')} AS position
         FROM clarification_audit
        WHERE pending_id = :pending_id AND (:at::timestamptz IS NULL OR (at, id) > (:at::timestamptz, :id::bigint))
        ORDER BY at, id LIMIT :limit`,
);

const AUDIT_PRUNE = namedStatement(
  'audit_prune',
  ['older_than'],
  `WITH gone AS (DELETE FROM clarification_audit WHERE at < :older_than RETURNING 1) SELECT COUNT(*)::text AS count FROM gone`,
);

/** The statements AuditRepository runs, for `npm run sql:write`. */
export const auditStatements: readonly NamedStatement[] = [AUDIT_INSERT, AUDIT_LIST, AUDIT_PRUNE];

/**
 * `clarification_audit`: resolution attempts, written after their outcome is known — never read
 * by the claim, which decides from the message rows alone (spec P1).
 */
@Injectable()
export class AuditRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a batch of attempts in one statement, with the name of each attempt's user; an attempt whose
   * claim already recorded it (won, then rolled back) gets its final outcome. A not-found
   * attempt is kept only when its id names a bundle that exists (someone reaching for a bundle that
   * is not theirs); one for an id that names nothing is dropped, so fabricated ids cannot grow the table.
   */
  async insert(entries: readonly AuditEntry[]): Promise<number> {
    const rows = await AUDIT_INSERT.rows<{ id: string }>(this.dataSource, { entries: JSON.stringify(entries) });
    return rows.length;
  }

  /** A bundle's attempts in the order they ended (at, id), after a keyset position. */
  list(pendingId: string, after: { at: string; id: string } | undefined, limit: number): Promise<AuditRow[]> {
    return AUDIT_LIST.rows<AuditRow>(this.dataSource, {
      pending_id: pendingId,
      at: after?.at ?? null,
      id: after?.id ?? null,
      limit,
    });
  }

  /** Forgets attempts older than the cutoff. */
  async prune(olderThan: Date): Promise<number> {
    const rows = await AUDIT_PRUNE.rows<{ count: string }>(this.dataSource, { older_than: olderThan });
    return Number(rows[0]?.count ?? 0);
  }
}
