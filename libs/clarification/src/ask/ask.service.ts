import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type Caller, MembershipService, SessionActorService } from '#authorization';
import { traced } from '#observability';
import { inTransaction } from '#persistence';
import { type Action, actionDigest, parseAction } from '#receipts';
import { isTerminalSessionState, SessionRepository } from '#tasks';
import { LifecycleEventCounter } from '../events/lifecycle-event.counter.js';
import { recordedResponse, requestFromRows } from '../bundle/bundle.mapper.js';
import { BundleRepository } from '../bundle/bundle.repository.js';
import type { NewBundleRow } from '../bundle/bundle.types.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { type ClarificationRequest, type ClarificationResponse, ClarificationStatus } from '../bundle/clarification.types.js';
import { receiptIdentityOf } from '../bundle/resolved-by.rules.js';
import { normalizeDeadline } from '../lifecycle/deadline.rules.js';
import { stateOf } from '../read/bundle-state.mapper.js';
import { storedRouting } from '../routing/routing-ask.rules.js';
import { namedUserIds, normalizeRouting } from '../routing/routing.validation.js';
import { WaiterPresenceService } from '../wait/waiter-presence.service.js';
import type { AskInput, AskResult } from './ask.types.js';
import { normalizeContext, normalizeQuestions, sameQuestions } from './question.validation.js';

/** The ask's action with its digest, validated (400 naming the field); undefined when none was given. */
function actionOf(value: unknown): { action: Action; action_digest: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = parseAction(value);
  if ('problem' in parsed) throw ClarificationError.validation(parsed.problem);
  return { action: parsed.action, action_digest: actionDigest(parsed.action) };
}

/** Asking: a new bundle on the session's current turn, from any surface. */
@Injectable()
export class AskService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bundles: BundleRepository,
    private readonly sessions: SessionRepository,
    private readonly presence: WaiterPresenceService,
    private readonly lifecycleEvents: LifecycleEventCounter,
    private readonly members: MembershipService,
    private readonly actors: SessionActorService,
  ) {}

  /**
   * Creates a bundle on the session's current turn (one row per question, all or nothing), with its
   * index row and ASKED event, and puts the session in WAITING_FOR_INPUT — refused on a terminal
   * session or an archived task, checked under the session's lock so it cannot race the change. An
   * identical still-pending bundle is returned, not duplicated.
   */
  ask(input: AskInput): Promise<AskResult> {
    return traced('parley.ask', { 'parley.session.id': input.sessionId }, async (span) => {
      const asked = await this.createBundle(input);
      span.setAttribute('parley.pending_id', asked.request.pending_id);
      return asked;
    });
  }

  private async createBundle(input: AskInput): Promise<AskResult> {
    const questions = normalizeQuestions(input.questions);
    const context = normalizeContext(input.context);
    const expiresInSeconds = normalizeDeadline(input.expiresInSeconds);
    const routing = await this.routingOf(input);
    const action = actionOf(input.action);
    const result = await inTransaction(this.dataSource, async (manager) => {
      const session = await this.sessions.lockById(input.sessionId, manager);
      if (!session) throw new ClarificationError(ClarificationErrorCode.NotFound, 'session not found');
      if (input.taskId && input.taskId !== session.task_id) {
        throw ClarificationError.validation("task_id does not match the session's task");
      }
      if (isTerminalSessionState(session.state)) throw ClarificationError.sessionEnded(session.state);
      if (session.task_archived) throw ClarificationError.taskArchived();
      const identical = (await this.bundles.findActiveBundlesOfSession(session.id, manager))
        .map(requestFromRows)
        .find((existing) => sameQuestions(existing.questions, questions) && (existing.action_digest ?? null) === (action?.action_digest ?? null));
      if (identical) return { request: identical, created: false, messageIds: [] };
      const retried = input.agentWaitsHere ? await this.resolvedRetry(session.id, questions, context, action?.action_digest, manager) : undefined;
      if (retried) return { ...retried, created: false, messageIds: [] };

      const turnId =
        (await this.bundles.currentTurnId(session.id, manager)) ??
        (await this.sessions.insertTurn({ id: randomUUID(), sessionId: session.id, taskId: session.task_id }, manager)).id;
      const pendingId = randomUUID();
      const rows: NewBundleRow[] = questions.map((question, index) => ({
        id: randomUUID(),
        content: question.prompt,
        metadata: {
          pending_id: pendingId,
          question_id: question.id,
          question,
          question_index: index,
          question_total: questions.length,
          context,
          status: ClarificationStatus.Pending,
          asked_by: input.askedBy,
          ...(routing === undefined ? {} : { routing: routing.stored }),
          ...(action === undefined ? {} : action),
        },
      }));
      const stored = await this.bundles.insertBundle(
        {
          pendingId,
          sessionId: session.id,
          taskId: session.task_id,
          turnId,
          rows,
          eventPayload: routing === undefined ? { questions, context } : { questions, context, routing: routing.stored },
          expiresInSeconds,
          escalation: routing?.ladder,
        },
        manager,
      );
      if (input.agentWaitsHere) await this.presence.announceIn(manager, pendingId);
      return { request: requestFromRows(stored), created: true, messageIds: rows.map((row) => row.id) };
    });
    if (result.created) this.lifecycleEvents.asked(result.request, result.messageIds);
    return { request: result.request, created: result.created, ...('resolved' in result ? { resolved: result.resolved } : {}) };
  }

  /**
   * An agent's ask retried after its waiting call broke off (its connection or its replica died) and
   * the bundle was resolved meanwhile: the same questions, context and action as the session's most
   * recent bundle, asked by its agent, and no turn began since but the one reserved to resume the agent
   * with this very answer. The retry gets that one answer; a second bundle would ask the people again
   * what they already answered.
   */
  private async resolvedRetry(
    sessionId: string,
    questions: ReturnType<typeof normalizeQuestions>,
    context: string,
    actionDigest: string | undefined,
    manager: EntityManager,
  ): Promise<{ request: ClarificationRequest; resolved: ClarificationResponse } | undefined> {
    const rows = await this.bundles.findLatestBundleOfSession(sessionId, manager);
    const [first] = rows;
    if (first === undefined || first.metadata.asked_by?.kind !== 'agent') return undefined;
    const request = requestFromRows(rows);
    // The very same questions (ids, titles and kinds too): asking "Go?" again as another question is a new bundle.
    const same = isDeepStrictEqual(request.questions, questions) && request.context === context && (request.action_digest ?? undefined) === actionDigest;
    if (!same) return undefined;
    const turnId = await this.bundles.currentTurnId(sessionId, manager);
    if (turnId !== first.turn_id && (turnId === undefined || (await this.bundles.resumeOfTurn(turnId, manager)) !== request.pending_id)) return undefined;
    const state = stateOf(rows, false);
    return state.status === 'answered' || state.status === 'rejected' ? { request, resolved: recordedResponse(rows) } : undefined;
  }

  /** The ask's routing, validated (400 naming the field) and its users looked up (one the asker may not route to is a 400 naming it). */
  private async routingOf(input: AskInput): Promise<ReturnType<typeof storedRouting> | undefined> {
    const routing = normalizeRouting(input.routing);
    if (routing === undefined) return undefined;
    return storedRouting(routing, await this.members.routableNames(input.askedBy, input.sessionId, [...new Set(namedUserIds(routing))]));
  }

  /** Asking through REST: the session's own act (its agent, its opener, an admin); one who does not see the session gets its "not found". */
  async askAs(caller: Caller, input: Omit<AskInput, 'askedBy'>): Promise<AskResult> {
    await this.actors.authorizeAct(caller, input.sessionId);
    return this.ask({ ...input, askedBy: receiptIdentityOf(caller) });
  }
}
