import { Injectable } from '@nestjs/common';
import { AccessService, type Caller } from '#authorization';
import { decodeCursor, encodeCursor, isCalendarDate } from '#common';
import { bundleTaskId, finalReceipt, requestFromRows } from '../bundle/bundle.mapper.js';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { BundleReadService } from '../read/bundle-read.service.js';
import { expiresAtOf } from '../lifecycle/deadline.rules.js';
import { finalResolvedBy, type ResolvedBy } from '../bundle/resolved-by.rules.js';
import type { BundleRow } from '../bundle/clarification.types.js';
import { PendingListRepository } from './pending-list.repository.js';
import { listedRouting } from '../routing/routing.rules.js';
import type { VoteView } from '../routing/routing.types.js';
import type { PendingBundleView, PendingPage } from '../wire/pending-bundle.wire.js';
import { RoutingReportService } from '../routing/routing-report.service.js';

export const DEFAULT_PENDING_LIMIT = 50;
export const MAX_PENDING_LIMIT = 200;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** D3: the known question statuses; any other stored value is reported as pending, as the reference does. */
const KNOWN_STATUSES: readonly string[] = ['pending', 'answered', 'rejected', 'cancelled', 'expired'];

export interface PendingListInput {
  workspace_id?: string;
  created_since?: string;
  cursor?: string;
  limit?: number;
}

export type { PendingBundleView, PendingPage };

/** One bundle as GraphQL `question` reports it: the list's shape, who won once final, its deadline, its votes. */
export interface DescribedBundle extends PendingBundleView {
  resolved_by: ResolvedBy | null;
  /** The resolution's receipt, once final. */
  receipt: string | null;
  expires_at: string | null;
  /** A routed bundle only: its votes. */
  votes?: VoteView[];
}


/** L10: absent or below 1 ⇒ the default; above the cap ⇒ the cap. */
function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit) || limit < 1) return DEFAULT_PENDING_LIMIT;
  return Math.min(Math.floor(limit), MAX_PENDING_LIMIT);
}

function parseCreatedSince(value: string | undefined): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = RFC3339.test(value) && isCalendarDate(value) ? new Date(value) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) throw ClarificationError.validation('created_since must be an RFC3339 timestamp');
  return parsed;
}

function parseCursor(value: string | undefined): { at: string; pendingId: string } | undefined {
  if (value === undefined || value === '') return undefined;
  const position = decodeCursor(value);
  if (!position) throw ClarificationError.validation('cursor is invalid');
  return { at: position.at, pendingId: position.id };
}

function reportedStatus(status: unknown): string {
  return typeof status === 'string' && KNOWN_STATUSES.includes(status) ? status : 'pending';
}

/** L4/L4a: every field present, strings never null, status of an absent key reported as pending. */
/** `rows`: every row of the bundle in D2 order; its created_at is theirs (D1: the earliest). */
function bundleView(caller: Caller, rows: BundleRow[], head: { pending_id: string; task_id: string; session_id: string }, now: number): PendingBundleView {
  const request = requestFromRows(rows);
  return {
    pending_id: head.pending_id,
    task_id: head.task_id ?? '',
    session_id: head.session_id ?? '',
    created_at: request.created_at,
    age_seconds: Math.max(0, Math.floor((now - Date.parse(request.created_at)) / 1000)),
    context: request.context,
    questions: request.questions.map((question, index) => ({
      question_id: question.id,
      title: question.title,
      prompt: question.prompt,
      status: reportedStatus(rows[index]?.metadata.status),
      options: question.options,
    })),
    ...(request.action === undefined ? {} : { action: request.action, action_digest: request.action_digest }),
    ...listedRouting(caller, rows),
  };
}

/** list_pending_questions_kandev (and the GraphQL pendingQuestions connection): spec L1–L16, D1–D7. */
@Injectable()
export class PendingListService {
  constructor(
    private readonly pending: PendingListRepository,
    private readonly access: AccessService,
    private readonly reader: BundleReadService,
    private readonly routing: RoutingReportService,
  ) {}

  /** How many bundles are active (answerable) now, from the bundle index (the operational gauge). */
  activeCount(): Promise<number> {
    return this.pending.activeCount();
  }

  /** One bundle in the list's shape, whatever its state; a foreign id is the same not-found as a missing one. */
  async describe(caller: Caller, pendingId: string): Promise<DescribedBundle> {
    const { rows, active } = await this.reader.authorizeBundle(caller, pendingId);
    const first = rows[0];
    const view = bundleView(caller, rows, { pending_id: pendingId, task_id: bundleTaskId(rows), session_id: first.task_session_id }, Date.now());
    const resolvedBy = finalResolvedBy(rows, active);
    const { votes } = await this.routing.report(caller, rows, resolvedBy !== null);
    return { ...view, resolved_by: resolvedBy, receipt: finalReceipt(rows, active), expires_at: expiresAtOf(rows), ...(votes === undefined ? {} : { votes }) };
  }

  async list(caller: Caller, input: PendingListInput): Promise<PendingPage> {
    const createdSince = parseCreatedSince(input.created_since);
    const after = parseCursor(input.cursor);
    const limit = pageSize(input.limit);
    const heads = await this.pending.listHeads({
      visibility: await this.access.visibleWorkspaceIds(caller),
      workspaceId: input.workspace_id ? input.workspace_id : undefined,
      createdSince,
      after,
      limit: limit + 1,
    });
    const page = heads.slice(0, limit);
    const rows = await this.pending.rowsOf(page.map((head) => head.pending_id));
    const now = Date.now();
    const bundles = page.map((head) =>
      bundleView(caller, rows.filter((row) => row.metadata.pending_id === head.pending_id), head, now),
    );
    const last = page[page.length - 1];
    return {
      bundles,
      count: bundles.length,
      next_cursor: heads.length > limit && last ? encodeCursor({ at: last.scan_key, id: last.pending_id }) : '',
    };
  }
}
