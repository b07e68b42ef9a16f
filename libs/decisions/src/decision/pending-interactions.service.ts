import { Injectable } from '@nestjs/common';
import { AccessService, type Caller } from '#authorization';
import { actionOfRows, type BundleRow, listedRouting, type RoutingView, type WorkerBundleHead, WorkerBundleService } from '#clarification';
import type { Action } from '#receipts';
import { decisionOf, type DecisionView } from './decision.mapper.js';

export const PENDING_SCHEMA_VERSION = 1;

export interface PendingInteraction {
  worker_id: string;
  task_id: string;
  pending_id: string;
  kind: 'question';
  status: 'open';
  question: string;
  question_count: number;
  created_at: string;
  /** `decision` only when a command can answer it: one question, single / plan / multi, at most nine options. */
  meta: { decision?: DecisionView };
  /** A routed decision only: whether the caller may answer it (answer_decision is `not_eligible` otherwise). */
  eligible?: boolean;
  /** A routed decision only: who is assigned and how many identical answers resolve it. */
  routing?: RoutingView;
  /** A decision asked with an action only: what an answer authorizes, and its digest (docs/receipts.md). */
  action?: Action;
  action_digest?: string;
}

export interface PendingInteractionsPayload {
  schema_version: number;
  pending_interactions: PendingInteraction[];
}

function interactionOf(caller: Caller, head: WorkerBundleHead, rows: BundleRow[]): PendingInteraction {
  const shape = decisionOf(rows);
  const first = rows[0];
  const createdAt = rows.reduce((min, row) => (row.created_at < min ? row.created_at : min), first.created_at);
  return {
    worker_id: head.worker_id,
    task_id: head.task_id,
    pending_id: head.pending_id,
    kind: 'question',
    status: 'open',
    question: typeof first.metadata.question?.prompt === 'string' ? first.metadata.question.prompt : first.content,
    question_count: rows.length,
    created_at: new Date(createdAt).toISOString(),
    meta: shape.supported ? { decision: shape.decision.view } : {},
    ...listedRouting(caller, rows),
    ...boundAction(rows),
  };
}

/** `{action, action_digest}` for a bundle asked with an action; nothing otherwise (the contract's items stay as they were). */
function boundAction(rows: BundleRow[]): { action?: Action; action_digest?: string } {
  const { action, action_digest: digest } = actionOfRows(rows);
  return action === null || digest === null ? {} : { action, action_digest: digest };
}

/**
 * GET /api/v1/pending-interactions: one item per visible worker with a current decision — active, or
 * held by a winner whose delivery is pending (being answered, not gone until that is final).
 */
@Injectable()
export class PendingInteractionsService {
  constructor(
    private readonly workers: WorkerBundleService,
    private readonly access: AccessService,
  ) {}

  async list(caller: Caller): Promise<PendingInteractionsPayload> {
    const heads = await this.workers.listWorkerBundles(await this.access.visibleWorkspaceIds(caller));
    const rows = await this.workers.bundleRows(heads.map((head) => head.pending_id));
    return {
      schema_version: PENDING_SCHEMA_VERSION,
      pending_interactions: heads.flatMap((head) => {
        const bundle = rows.filter((row) => row.metadata.pending_id === head.pending_id);
        return bundle.length > 0 ? [interactionOf(caller, head, bundle)] : [];
      }),
    };
  }
}
