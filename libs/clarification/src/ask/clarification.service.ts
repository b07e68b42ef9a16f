import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AuthorizationError, type Caller, CallerRevocations, callerReach, MembershipService, SessionActorService } from '#authorization';
import { APP_CONFIG, type AppConfig } from '#config';
import { traced } from '#observability';
import { inTransaction, ProcessLease } from '#persistence';
import { type Action, actionDigest, parseAction } from '#receipts';
import { isTerminalSessionState, SessionRepository } from '#tasks';
import { BundleRepository } from '../bundle/bundle.repository.js';
import type { AuthorizedBundle, NewBundleRow } from '../bundle/bundle.types.js';
import { BundleLifecycleRepository } from '../lifecycle/bundle-lifecycle.repository.js';
import { finalReceipt, recordedResponse, requestFromRows } from '../bundle/bundle.mapper.js';
import { BundleSignals, type PendingChange } from '../wait/bundle-signal.service.js';
import { LifecycleEventCounter } from '../events/lifecycle-event.counter.js';
import { ClarificationLifecycleService } from '../lifecycle/clarification-lifecycle.service.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { type ClarificationRequest, type ClarificationResponse, ClarificationStatus } from '../bundle/clarification.types.js';
import { deadlinePassed, expiresAtOf, normalizeDeadline } from '../lifecycle/deadline.rules.js';
import { normalizeContext, normalizeQuestions, sameQuestions } from './question.validation.js';
import { finalResolvedBy, receiptIdentityOf } from '../bundle/resolved-by.rules.js';
import { WaiterPresenceRepository } from '../wait/waiter-presence.repository.js';
import { type LongPollEndings, type LongPollListener, LongPollRevocation, ParkedLongPoll } from '../wait/long-poll.listener.js';
import { type ParkedWait, WaitFailure, type WaitListener, WaiterRole, WaiterStore } from '../wait/waiter.store.js';
import type { AskInput, AskResult } from './ask.types.js';
import { type BundleReport, closedReason, stateOf } from './bundle-state.mapper.js';
import { waitEnded } from '../wait/wait.errors.js';
import { storedRouting } from '../routing/routing-ask.rules.js';
import { RoutingReportService } from '../routing/routing-report.service.js';
import { namedUserIds, normalizeRouting } from '../routing/routing.validation.js';

/** The ask's action with its digest, validated (400 naming the field); undefined when none was given. */
function actionOf(value: unknown): { action: Action; action_digest: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = parseAction(value);
  if ('problem' in parsed) throw ClarificationError.validation(parsed.problem);
  return { action: parsed.action, action_digest: actionDigest(parsed.action) };
}

/** Asking, reading, waiting on and cancelling clarification bundles — all from the durable rows. */
@Injectable()
export class ClarificationService implements OnModuleInit, LongPollEndings {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bundles: BundleRepository,
    private readonly sessions: SessionRepository,
    private readonly waiters: WaiterStore,
    private readonly presence: WaiterPresenceRepository,
    private readonly signals: BundleSignals,
    private readonly lifecycle: ClarificationLifecycleService,
    private readonly lease: ProcessLease,
    private readonly revocations: CallerRevocations,
    private readonly lifecycleEvents: LifecycleEventCounter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bundleLifecycle: BundleLifecycleRepository,
    private readonly members: MembershipService,
    private readonly routing: RoutingReportService,
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
      if (input.agentWaitsHere) await this.presence.announce(pendingId, this.lease.id, manager);
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

  /**
   * Spec M5 + A1–A5: the bundle's durable rows, once the caller is allowed to act on its task — in one
   * query, so a missing bundle and a foreign one are the same not-found at the same cost.
   */
  async authorizeBundle(caller: Caller, pendingId: string): Promise<AuthorizedBundle & { session: NonNullable<AuthorizedBundle['session']> }> {
    const bundle = await this.bundles.findAuthorizedBundle(pendingId, callerReach(caller));
    if (bundle.rows.length === 0) throw ClarificationError.notFound();
    return { rows: bundle.rows, session: bundle.session ?? { state: '', resume_url: '', task_id: '' }, active: bundle.active };
  }

  /** The bundle and where it stands (spec A7, read from the durable rows on any replica) — one query. */
  async getBundle(caller: Caller, pendingId: string): Promise<BundleReport> {
    const { rows, active } = await this.authorizeBundle(caller, pendingId);
    const state = stateOf(rows, active);
    const resolved = state.status === 'answered' || state.status === 'rejected';
    return { ...state, resolved_by: finalResolvedBy(rows, active), receipt: finalReceipt(rows, active), expires_at: expiresAtOf(rows), ...(await this.routing.report(caller, rows, resolved)) };
  }
  /**
   * Long poll: the winner's response — at once when it is already final, else once it is. A bundle no
   * longer active without a winner is a 409; the bound passing, a cancel or a drain a 504 saying which.
   * The session's agent (its agent token; anyone while auth is disabled) consumes the answer; others observe.
   * The outcome goes to `listener`; resolves with the parked wait (to withdraw it when the caller goes
   * away), or undefined when nothing was parked; rejects when the wait cannot start (not found, not active).
   */
  async wait(caller: Caller, pendingId: string, listener: LongPollListener): Promise<ParkedWait | undefined> {
    // Watch for a change before reading, so one between the read and the attach is not missed.
    const change = this.signals.nextChange(pendingId, this.config.waitTimeoutMs);
    const { rows, active } = await this.authorizeBundle(caller, pendingId).catch((error: unknown) => {
      change.cancel();
      throw error;
    });
    const before = stateOf(rows, active);
    if (before.status !== 'pending' && before.status !== 'delivering') change.cancel();
    if (before.status === 'answered' || before.status === 'rejected') {
      listener.answered(recordedResponse(rows));
      return undefined;
    }
    if (before.status !== 'pending' && before.status !== 'delivering') throw deadlinePassed(rows) ?? ClarificationError.notActive();
    if (listener.gone) {
      change.cancel();
      return undefined;
    }
    const role = caller.kind === 'agent' || caller.kind === 'synthetic' ? WaiterRole.Agent : WaiterRole.Observer;
    // Returned, not awaited: once parked, nothing of this call (its rows, its caller) stays referenced.
    return this.park(caller, pendingId, role, change, listener);
  }

  /**
   * Parks a long poll: one compact waiter telling the caller's listener, no timer, signal or promise of
   * its own. Revocation bites an open wait (the answer never reaches a credential revoked meanwhile).
   */
  private park(caller: Caller, pendingId: string, role: WaiterRole, change: PendingChange, listener: LongPollListener): ParkedWait {
    const poll = new ParkedLongPoll(pendingId, listener, this);
    poll.parked = this.waiters.park(pendingId, { role, timeoutMs: this.config.waitTimeoutMs }, poll);
    poll.stopWatching = this.revocations.watch(caller, () => poll.revoke(LongPollRevocation.Credential), {
      recheck: () => void this.recheckAccess(caller, pendingId, poll),
    });
    // Attached: a change from now on reaches the waiter; one that came in between is read again.
    if (change.fired()) void this.recheck(pendingId);
    change.cancel();
    return poll.parked;
  }

  /**
   * A membership of the waiting caller was removed: the wait ends when the caller no longer sees the
   * bundle. (The database away, the check fails and the wait goes on: it could not be answered then either.)
   */
  private async recheckAccess(caller: Caller, pendingId: string, poll: ParkedLongPoll): Promise<void> {
    try {
      await this.authorizeBundle(caller, pendingId);
    } catch (error) {
      if (error instanceof ClarificationError && error.code === ClarificationErrorCode.NotFound) poll.revoke(LongPollRevocation.Access);
    }
  }

  /** What a parked long poll that ended is answered with: 401 or 404 once revoked, the deadline's 409, else a 504 saying why. */
  async endedError(pendingId: string, reason: WaitFailure, revoked: LongPollRevocation | undefined): Promise<unknown> {
    if (revoked === LongPollRevocation.Credential) return AuthorizationError.unauthenticated('the credential was revoked');
    if (revoked === LongPollRevocation.Access) return ClarificationError.notFound();
    if (reason === WaitFailure.Expired) return deadlinePassed(await this.bundles.findBundle(pendingId)) ?? waitEnded(reason);
    return waitEnded(reason);
  }

  /**
   * Re-reads a bundle someone waits on here and ends their wait if its fate was decided (a final
   * answer, or no longer active) — after attaching, and after the database connection came back.
   */
  async recheck(pendingId: string): Promise<void> {
    try {
      const rows = await this.bundles.findBundle(pendingId);
      if (rows.length === 0) return;
      const state = stateOf(rows, await this.bundles.isBundleActive(pendingId));
      if (state.status === 'answered' || state.status === 'rejected') this.waiters.settle(pendingId, recordedResponse(rows));
      else if (state.status !== 'pending' && state.status !== 'delivering') this.waiters.close(pendingId, closedReason(state.status));
    } catch {
      // The database is away (or closing): the waiters keep waiting; the reconnect re-checks them.
    }
  }

  /** Cancel (not a claim), on any replica: the active bundle's rows become cancelled and every waiter wakes. */
  async cancel(caller: Caller, pendingId: string): Promise<void> {
    const { rows } = await this.authorizeBundle(caller, pendingId);
    const sessionId = (rows[0]).task_session_id;
    await this.actors.authorizeAct(caller, sessionId);
    const cancelled = await inTransaction(this.dataSource, async (manager) => {
      await this.sessions.lockById(sessionId, manager);
      return this.bundleLifecycle.cancelBundle(pendingId, manager);
    });
    if (cancelled.length === 0) throw ClarificationError.notActive();
    this.lifecycle.announce(cancelled, 'cancelled');
  }

  /**
   * The agent's in-session wait on a bundle it just asked — attached in the same tick the ask
   * committed (no answer can be decided here in between; other replicas see the presence the ask
   * recorded), so nothing needs to be read again.
   */
  parkAgent(pendingId: string, timeoutMs: number, listener: WaitListener): ParkedWait {
    return this.waiters.park(pendingId, { role: WaiterRole.Agent, timeoutMs }, listener);
  }

  /** Wakes waiters here as bundles' fates change anywhere; re-checks them after a database outage. */
  onModuleInit(): void {
    this.signals.subscribe((signal) => {
      if (this.waiters.waiterCount(signal.pending_id) === 0) return;
      switch (signal.kind) {
        case 'settled':
          if (signal.from !== this.lease.id) void this.recheck(signal.pending_id);
          return;
        case 'expired':
          this.waiters.close(signal.pending_id, WaitFailure.Expired);
          return;
        case 'cancelled':
          this.waiters.close(signal.pending_id, WaitFailure.Cancelled);
          return;
        case 'superseded':
          this.waiters.close(signal.pending_id, WaitFailure.Superseded);
          return;
        case 'detached':
          this.waiters.close(signal.pending_id, WaitFailure.Detached, WaiterRole.Agent);
          return;
        case 'reopened':
        case 'deliver':
        case 'voted':
          return;
      }
    });
    this.signals.onReconnect(() => this.waiters.pendingIds().forEach((pendingId) => void this.recheck(pendingId)));
  }
}
