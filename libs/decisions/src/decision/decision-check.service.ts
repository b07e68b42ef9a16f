import { Injectable } from '@nestjs/common';
import { AccessService, type Caller } from '#authorization';
import { type BundleRow, ClarificationError, mayAnswer, type ResolutionInput, routingOf, Settlement, settlementOf, validateOutcome, WorkerBundleService } from '#clarification';
import { assertNever } from '#common';
import type { AnswerDecisionRequest } from '../command/command.request.js';
import { answerFor, decisionOf } from './decision.mapper.js';
import { DecisionRepository } from './decision.repository.js';
import { CommandStatus, DecisionError } from '../decisions.errors.js';

/** A request proven against the worker's current decision: what ResolveBundle will be asked. */
export interface CheckedDecision {
  workerId: string;
  pendingId: string;
  decisionRef: string;
  input: ResolutionInput;
  /**
   * A winner's claim on it is being delivered (Settlement.Delivering): the decision is held — another
   * request is answering it (check 6) — until that delivery is final or rolled back.
   */
  held: boolean;
}

/**
 * Checks 1–5 of the contract, read-only, in its order: worker missing, closed or not the caller's
 * ⇒ unknown_worker (one answer for all three); decision unsupported (more than one question, more
 * than nine options, unknown kind) ⇒ unsupported_decision; not the current decision ⇒
 * decision_not_pending; routed to answerers the caller is not among ⇒ not_eligible; selection invalid ⇒
 * invalid_selection. A decision whose winner's delivery
 * is still pending is checked like a pending one and comes back `held`, for check 6 to answer.
 */
@Injectable()
export class DecisionCheckService {
  constructor(
    private readonly decisions: DecisionRepository,
    private readonly access: AccessService,
    private readonly workers: WorkerBundleService,
  ) {}

  async check(caller: Caller, request: AnswerDecisionRequest): Promise<CheckedDecision> {
    const worker = await this.decisions.findWorker(request.workerId);
    if (!worker || !worker.open || !(await this.access.authorizeTaskAccess(caller, worker.task_id))) {
      throw DecisionError.unknownWorker();
    }
    const { rows, active } = await this.workers.currentBundle(worker.id);
    if (rows.length === 0) throw DecisionError.notPending();
    const shape = decisionOf(rows);
    if (!shape.supported) throw DecisionError.unsupported(shape.reason);
    if (shape.decision.view.decision_ref !== request.decisionRef) throw DecisionError.notPending();
    if (!mayAnswer(caller, routingOf(rows))) throw DecisionError.notEligible();
    const input = answerFor(shape.decision, request.selection);
    assertResolvable(input, rows);
    return { workerId: worker.id, pendingId: rows[0]?.metadata.pending_id ?? '', decisionRef: request.decisionRef, input, held: isHeld(rows, active) };
  }
}

/** Whether the decision's rows are held by a winner's pending delivery (they are active otherwise). */
function isHeld(rows: readonly BundleRow[], active: boolean): boolean {
  const settlement = settlementOf(rows, active);
  switch (settlement) {
    case Settlement.Delivering:
      return true;
    case Settlement.Open:
      return false;
    case Settlement.Final:
      // Not chosen as a decision; a final answer is never pending again.
      throw DecisionError.notPending();
    default:
      return assertNever(settlement);
  }
}

/** ResolveBundle's own answer rules (N6–N8b), run here so a send never fails on them. */
function assertResolvable(input: ResolutionInput, rows: BundleRow[]): void {
  try {
    validateOutcome(input, rows);
  } catch (error) {
    if (error instanceof ClarificationError) throw new DecisionError(CommandStatus.InvalidSelection, error.message, { field: 'params.selection' });
    throw error;
  }
}
