import { Injectable } from '@nestjs/common';
import type { Caller } from '#authorization';
import { decodeCursor, encodeCursor, LIST_PAGE, pageLimit } from '#common';
import { AuditRecorder } from './audit.recorder.js';
import { AuditRepository, type AuditRow } from './audit.repository.js';
import type { AuditAttemptView, AuditPage } from './audit.types.js';
import { ClarificationError } from './clarification.errors.js';
import { ClarificationService } from './clarification.service.js';

export const DEFAULT_AUDIT_LIMIT = LIST_PAGE.defaultLimit;
export const MAX_AUDIT_LIMIT = LIST_PAGE.maxLimit;

export interface AuditQuery {
  cursor?: string;
  limit?: number;
}

/** The one page rule (LIST_PAGE); the cursor is checked on its own, its id being the row's number. */
function pageSize(limit: number | undefined): number {
  const size = pageLimit(limit);
  if (size === undefined) throw ClarificationError.validation(`limit must be an integer from 1 to ${MAX_AUDIT_LIMIT}`);
  return size;
}

function position(cursor: string | undefined): { at: string; id: string } | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const decoded = decodeCursor(cursor);
  if (!decoded || !/^\d{1,18}$/.test(decoded.id)) throw ClarificationError.validation('cursor is invalid');
  return decoded;
}

function attemptView(row: AuditRow): AuditAttemptView {
  return {
    id: row.id,
    pending_id: row.pending_id,
    outcome: row.outcome,
    surface: row.surface,
    caller: { kind: row.caller_kind, user_id: row.caller_user_id, name: row.caller_name },
    rejected: row.rejected,
    reject_reason: row.reject_reason,
    detail: row.detail,
    at: row.at.toISOString(),
  };
}

/** The audit trail of a bundle, for whoever may see the bundle (anyone else: the same not-found). */
@Injectable()
export class AuditService {
  constructor(
    private readonly clarifications: ClarificationService,
    private readonly recorder: AuditRecorder,
    private readonly audit: AuditRepository,
  ) {}

  async list(caller: Caller, pendingId: string, query: AuditQuery): Promise<AuditPage> {
    const limit = pageSize(query.limit);
    const after = position(query.cursor);
    await this.clarifications.authorizeBundle(caller, pendingId);
    await this.recorder.flush();
    const rows = await this.audit.list(pendingId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      attempts: page.map(attemptView),
      next_cursor: rows.length > limit && last ? encodeCursor({ at: last.position, id: last.id }) : '',
    };
  }
}
