import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { activeRow, bundleTaskIdSql, CLARIFICATION_REQUEST, currentPendingRow } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.sql.js';
import type { TouchedBundle } from '../bundle/bundle.types.js';
import { insertEventsCtes } from '../bundle/question-event.sql.js';
import type { BundleSignalKind } from '../bundle/bundle-signal.channel.js';

/**
 * One statement: `rowsSql` (a data-modifying or plain query yielding id, task_session_id, pending_id,
 * from the bundle or session id `:id`) picks the rows (the effects' count is selected so the NOTIFY
 * CTE is not pruned); their bundles get `event` and — unless detached, which leaves a bundle active —
 * leave the index; `signal` goes to those bundles, or to those `signalledSql` yields.
 */
function closeRowsStatement(
  label: string,
  rowsSql: string,
  event: string,
  signal: BundleSignalKind,
  signalledSql = 'SELECT pending_id FROM bundles',
): NamedStatement<'id' | 'event_payload'> {
  const deactivate = signal !== 'detached';
  return namedStatement(
    label,
    ['id', 'event_payload'],
    `WITH touched AS (${rowsSql}),
       bundles AS (
         SELECT t.pending_id, MIN(t.task_session_id) AS session_id, array_agg(t.id ORDER BY t.id) AS message_ids,
                COALESCE((SELECT ${bundleTaskIdSql('first_m.task_id', 's.task_id')}
                            FROM task_session_messages first_m LEFT JOIN task_sessions s ON s.id = first_m.task_session_id
                           WHERE first_m.metadata->>'pending_id' = t.pending_id AND first_m.type = '${CLARIFICATION_REQUEST}'
                           ORDER BY first_m.created_at, first_m.id LIMIT 1), '') AS task_id
           FROM touched t WHERE t.pending_id IS NOT NULL GROUP BY t.pending_id),
       indexed AS (UPDATE clarification_bundles SET active = false
                    WHERE ${deactivate ? 'TRUE' : 'FALSE'} AND active AND pending_id IN (SELECT pending_id FROM bundles) RETURNING pending_id),
       ${insertEventsCtes(`SELECT '${event}'::text AS type, pending_id, session_id, task_id, :event_payload::jsonb AS payload FROM bundles`)},
       signalled AS (${signalledSql}),
       signals AS (${notifyBundlesSql('SELECT pending_id FROM signalled', signal)})
       SELECT b.pending_id, b.session_id, b.task_id, b.message_ids, effects.written
         FROM (SELECT s.pending_id, COALESCE(b.session_id, '') AS session_id, COALESCE(b.task_id, '') AS task_id,
                      COALESCE(b.message_ids, ARRAY[]::text[]) AS message_ids
                 FROM signalled s LEFT JOIN bundles b ON b.pending_id = s.pending_id
               UNION SELECT b.pending_id, b.session_id, b.task_id, b.message_ids FROM bundles b) b,
              (SELECT (SELECT COUNT(*) FROM indexed) + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written) effects
        ORDER BY b.pending_id`,
  );
}

const EXPIRE_SESSION = closeRowsStatement(
  'bundle_lifecycle_expire_session', `UPDATE task_session_messages m SET metadata = m.metadata || '{"status": "expired"}'::jsonb, updated_at = clock_timestamp()
        WHERE m.task_session_id = :id AND ${currentPendingRow('m')}
        RETURNING m.id, m.task_session_id, m.metadata->>'pending_id' AS pending_id`, 'EXPIRED', 'expired',
);

const CANCEL_BUNDLE = closeRowsStatement(
  'bundle_lifecycle_cancel_bundle', `UPDATE task_session_messages m SET metadata = m.metadata || '{"status": "cancelled"}'::jsonb, updated_at = clock_timestamp()
        WHERE m.metadata->>'pending_id' = :id AND ${currentPendingRow('m')}
        RETURNING m.id, m.task_session_id, m.metadata->>'pending_id' AS pending_id`, 'CANCELLED', 'cancelled',
);

const EXPIRE_BUNDLE = closeRowsStatement(
  'bundle_lifecycle_expire_bundle', `UPDATE task_session_messages m SET metadata = m.metadata || '{"status": "expired", "expired_reason": "deadline"}'::jsonb, updated_at = clock_timestamp()
        WHERE m.metadata->>'pending_id' = :id AND ${activeRow('m')}
        RETURNING m.id, m.task_session_id, m.metadata->>'pending_id' AS pending_id`, 'EXPIRED', 'expired',
);

const SUPERSEDE_SESSION = closeRowsStatement(
  'bundle_lifecycle_supersede_session', `SELECT m.id, m.task_session_id, m.metadata->>'pending_id' AS pending_id FROM task_session_messages m
        WHERE m.task_session_id = :id AND ${activeRow('m')}`, 'SUPERSEDED', 'superseded',
);

const DETACH_SESSION = closeRowsStatement(
  'bundle_lifecycle_detach_session', `UPDATE task_session_messages m SET metadata = m.metadata || '{"agent_disconnected": true}'::jsonb, updated_at = clock_timestamp()
        WHERE m.task_session_id = :id AND ${currentPendingRow('m')} AND m.metadata->>'agent_disconnected' IS DISTINCT FROM 'true'
        RETURNING m.id, m.task_session_id, m.metadata->>'pending_id' AS pending_id`, 'DETACHED', 'detached', `SELECT DISTINCT m.metadata->>'pending_id' AS pending_id FROM task_session_messages m WHERE m.task_session_id = :id AND ${currentPendingRow('m')}`,
);

/** The statements BundleLifecycleRepository runs, for `npm run sql:write`. */
export const bundleLifecycleStatements: readonly NamedStatement[] = [
  EXPIRE_SESSION,
  CANCEL_BUNDLE,
  EXPIRE_BUNDLE,
  SUPERSEDE_SESSION,
  DETACH_SESSION,
];

/**
 * The lifecycle's changes to bundles that are not a claim — a session ending, a cancel, a deadline,
 * a newer turn, a detached agent — each one statement in the caller's transaction.
 */
@Injectable()
export class BundleLifecycleRepository {
  /**
   * Session terminal or task archived: the current turn's pending rows expire, their bundles leave the
   * index, each gets an EXPIRED event and a signal — all in the caller's transaction.
   */
  expireSession(sessionId: string, manager: EntityManager): Promise<TouchedBundle[]> {
    return this.closeRows(manager, EXPIRE_SESSION, sessionId);
  }

  /** Cancel (not a claim): the bundle's pending rows on the current turn become `cancelled`. */
  cancelBundle(pendingId: string, manager: EntityManager): Promise<TouchedBundle[]> {
    return this.closeRows(manager, CANCEL_BUNDLE, pendingId);
  }

  /**
   * Deadline passed: the bundle's pending rows on the current turn expire — marked
   * `expired_reason: deadline` — like a session ending does to them (index, EXPIRED event, signal).
   * The caller holds the session's lock.
   */
  expireBundle(pendingId: string, manager: EntityManager): Promise<TouchedBundle[]> {
    return this.closeRows(manager, EXPIRE_BUNDLE, pendingId, { reason: 'deadline' });
  }

  /**
   * A newer turn is about to become current: the bundles active now are superseded — their rows are
   * never rewritten, they leave the index and get a SUPERSEDED event.
   */
  supersedeSession(sessionId: string, manager: EntityManager): Promise<TouchedBundle[]> {
    return this.closeRows(manager, SUPERSEDE_SESSION, sessionId);
  }

  /**
   * Marks the session's current pending rows `agent_disconnected` — the bundles stay active; repeating
   * it writes nothing (and records no event) but still signals, so an agent waiting again is ended too.
   */
  detachSession(sessionId: string, manager: EntityManager): Promise<TouchedBundle[]> {
    return this.closeRows(manager, DETACH_SESSION, sessionId);
  }

  private async closeRows(
    manager: EntityManager,
    statement: NamedStatement<'id' | 'event_payload'>,
    id: string,
    eventPayload: Record<string, unknown> = {},
  ): Promise<TouchedBundle[]> {
    const rows = await statement.rows<TouchedBundle>(manager, { id, event_payload: JSON.stringify(eventPayload) });
    return rows.map(({ pending_id, session_id, task_id, message_ids }) => ({ pending_id, session_id, task_id, message_ids }));
  }
}
