import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessService, type Caller, callerScope } from '../../authorization/src/index.js';
import { EventBus } from '../../common/src/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/src/index.js';
import { inTransaction } from '../../persistence/src/index.js';
import { isTerminalSessionState, SessionRepository, SessionState } from '../../tasks/src/index.js';
import { BundleRepository, type NewBundleRow } from './bundle.repository.js';
import { bundleTaskId, requestFromRows } from './bundle.mapper.js';
import { ClarificationError, ClarificationErrorCode } from './clarification.errors.js';
import {
  type BundleRow,
  type ClarificationRequest,
  type ClarificationResponse,
  ClarificationStatus,
} from './clarification.types.js';
import { normalizeQuestions, sameQuestions } from './question.validation.js';
import { WaiterStore, WaitError } from './waiter.store.js';

export interface AskInput {
  sessionId: string;
  taskId?: string;
  questions: unknown;
  context?: unknown;
}

export interface AskResult {
  request: ClarificationRequest;
  /** False when an identical still-pending bundle of the session was returned instead. */
  created: boolean;
}

function groupByPendingId(rows: BundleRow[]): BundleRow[][] {
  const bundles = new Map<string, BundleRow[]>();
  for (const row of rows) {
    const pendingId = row.metadata.pending_id ?? '';
    bundles.set(pendingId, [...(bundles.get(pendingId) ?? []), row]);
  }
  return [...bundles.values()];
}

/** Asking, reading, waiting on and cancelling clarification bundles. */
@Injectable()
export class ClarificationService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bundles: BundleRepository,
    private readonly sessions: SessionRepository,
    private readonly waiters: WaiterStore,
    private readonly access: AccessService,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates a bundle on the session's current turn (one row per question, all or nothing) and puts
   * the session in WAITING_FOR_INPUT. An identical still-pending bundle is returned, not duplicated.
   */
  async ask(input: AskInput): Promise<AskResult> {
    const questions = normalizeQuestions(input.questions);
    if (input.context !== undefined && input.context !== null && typeof input.context !== 'string') {
      throw ClarificationError.validation('context must be a string');
    }
    const context = typeof input.context === 'string' ? input.context : '';
    const result = await inTransaction(this.dataSource, async (manager) => {
      const session = await this.sessions.lockById(input.sessionId, manager);
      if (!session) throw new ClarificationError(ClarificationErrorCode.NotFound, 'session not found');
      if (input.taskId && input.taskId !== session.task_id) {
        throw ClarificationError.validation("task_id does not match the session's task");
      }
      if (isTerminalSessionState(session.state)) {
        throw new ClarificationError(ClarificationErrorCode.SessionEnded, `session has ended (${session.state})`);
      }
      const identical = groupByPendingId(await this.bundles.findActiveRowsOfSession(session.id, manager))
        .map(requestFromRows)
        .find((existing) => sameQuestions(existing.questions, questions));
      if (identical) return { request: identical, created: false, messageIds: [] };

      const turnId =
        (await this.bundles.currentTurnId(session.id, manager)) ??
        (await this.sessions.insertTurn({ id: randomUUID(), sessionId: session.id, taskId: session.task_id }, manager)).id;
      const pendingId = randomUUID();
      const rows: NewBundleRow[] = questions.map((question, index) => ({
        id: randomUUID(),
        sessionId: session.id,
        taskId: session.task_id,
        turnId,
        content: question.prompt,
        metadata: {
          pending_id: pendingId,
          question_id: question.id,
          question,
          question_index: index,
          question_total: questions.length,
          context,
          status: ClarificationStatus.Pending,
        },
      }));
      await this.bundles.insertRows(rows, manager);
      await this.sessions.updateState(session.id, SessionState.WaitingForInput, manager);
      return {
        request: requestFromRows(await this.bundles.findBundle(pendingId, manager)),
        created: true,
        messageIds: rows.map((row) => row.id),
      };
    });
    this.waiters.register(result.request);
    if (result.created) {
      const { request } = result;
      this.events.publish('clarification.requested', {
        pending_id: request.pending_id,
        session_id: request.session_id,
        task_id: request.task_id,
        questions: request.questions,
        context: request.context,
      });
      this.events.publish('session.message.updated', {
        session_id: request.session_id,
        task_id: request.task_id,
        message_ids: result.messageIds,
      });
    }
    return { request: result.request, created: result.created };
  }

  /** Asking through REST: the caller must see the session (a foreign one is "not found"). */
  async askAs(caller: Caller, input: AskInput): Promise<AskResult> {
    if (!(await this.access.authorizeSessionAccess(caller, input.sessionId))) {
      throw new ClarificationError(ClarificationErrorCode.NotFound, 'session not found');
    }
    return this.ask(input);
  }

  /**
   * Spec M5 + A1–A5: the bundle's durable rows, once the caller is allowed to act on its task.
   * A missing bundle and a foreign one are the same not-found.
   */
  async authorizeBundle(caller: Caller, pendingId: string): Promise<BundleRow[]> {
    const rows = await this.bundles.findBundle(pendingId);
    if (rows.length === 0) throw ClarificationError.notFound();
    const taskId = bundleTaskId(rows);
    const scoped = callerScope(caller) !== undefined;
    if (scoped && (taskId === '' || !(await this.access.authorizeTaskAccess(caller, taskId)))) {
      throw ClarificationError.notFound();
    }
    return rows;
  }

  /** The live request of an authorized bundle (spec A7: authorization first; 404 once the entry is gone). */
  async getRequest(caller: Caller, pendingId: string): Promise<ClarificationRequest> {
    await this.authorizeBundle(caller, pendingId);
    const request = this.waiters.get(pendingId);
    if (!request) throw ClarificationError.notFound();
    return request;
  }

  /**
   * Long poll: the response once delivered; 504 on timeout, cancel or shutdown. An active bundle
   * whose entry was lost with a restart gets it back, so its agent can wait again.
   */
  async wait(caller: Caller, pendingId: string, signal?: AbortSignal): Promise<ClarificationResponse> {
    const rows = await this.authorizeBundle(caller, pendingId);
    if (!this.waiters.get(pendingId)) await this.rehydrate(pendingId, rows);
    try {
      return await this.waiters.wait(pendingId, { timeoutMs: this.config.waitTimeoutMs, signal });
    } catch (error) {
      if (error instanceof WaitError) {
        throw new ClarificationError(ClarificationErrorCode.WaitEnded, `clarification wait ended: ${error.reason}`);
      }
      throw error;
    }
  }

  /** Cancel (not a claim): needs a live entry, wakes its waiters, marks the pending rows cancelled. */
  async cancel(caller: Caller, pendingId: string): Promise<void> {
    const rows = await this.authorizeBundle(caller, pendingId);
    const request = this.waiters.get(pendingId);
    if (!request || !this.waiters.cancel(pendingId)) throw ClarificationError.notFound();
    const cancelled = await this.bundles.cancelBundle(pendingId);
    const taskId = bundleTaskId(rows);
    this.events.publish('clarification.cancelled', { pending_id: pendingId, session_id: request.session_id, task_id: taskId });
    if (cancelled.length > 0) {
      this.events.publish('session.message.updated', {
        session_id: request.session_id,
        task_id: taskId,
        message_ids: cancelled.map((row) => row.id),
      });
    }
  }

  private async rehydrate(pendingId: string, rows: BundleRow[]): Promise<ClarificationRequest | undefined> {
    if (!(await this.bundles.isBundleActive(pendingId))) return undefined;
    const request = requestFromRows(rows);
    this.waiters.register(request);
    return request;
  }
}
