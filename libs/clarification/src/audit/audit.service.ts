import { Injectable } from '@nestjs/common';
import type { Caller } from '#authorization';
import { pageOf, type PageRequest, readPageRequest } from '#common';
import { AuditRecorder } from './audit.recorder.js';
import { AuditRepository, type AuditRow } from './audit.repository.js';
import type { AuditAttemptView, AuditPage } from './audit.types.js';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { BundleReadService } from '../read/bundle-read.service.js';

export interface AuditQuery {
  cursor?: string;
  limit?: number;
}

/** The one page rule (LIST_PAGE); a cursor's id must also be a row's number. */
function pageRequest(query: AuditQuery): PageRequest {
  const request = readPageRequest(query, ClarificationError.validation);
  if (request.after && !/^\d{1,18}$/.test(request.after.id)) throw ClarificationError.validation('cursor is invalid');
  return request;
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
    private readonly reader: BundleReadService,
    private readonly recorder: AuditRecorder,
    private readonly audit: AuditRepository,
  ) {}

  async list(caller: Caller, pendingId: string, query: AuditQuery): Promise<AuditPage> {
    const { limit, after } = pageRequest(query);
    await this.reader.authorizeBundle(caller, pendingId);
    await this.recorder.flush();
    const rows = await this.audit.list(pendingId, after, limit + 1);
    const page = pageOf(rows, limit, (row) => ({ at: row.position, id: row.id }));
    return { attempts: page.rows.map(attemptView), next_cursor: page.next_cursor };
  }
}
