import { Inject, Injectable } from '@nestjs/common';
import type { SessionAgent } from '#authorization';
import { APP_CONFIG, type AppConfig } from '#config';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { ClarificationLifecycleService } from '../lifecycle/clarification-lifecycle.service.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { AskService } from './ask.service.js';
import { waitEnded } from '../wait/wait.errors.js';
import { deadlinePassed } from '../lifecycle/deadline.rules.js';
import { type ParkedWait, WaitFailure, WaiterRole, WaiterStore } from '../wait/waiter.store.js';
import { type AgentAskEndings, type AgentAskListener, ParkedAgentAsk } from './parked-agent-ask.js';

export interface AgentAskOptions {
  /** Aborts the ask while its bundle is created; once parked, the returned handle ends it. */
  signal: AbortSignal;
  /** Optional deadline: unanswered by then, the bundle expires and this ask fails with EXPIRED. */
  expiresInSeconds?: unknown;
  /** Optional routing (who may answer, quorum, escalation). */
  routing?: unknown;
  /** Optional action the answer authorizes ({name, arguments}). */
  action?: unknown;
}

/** Wait endings after which the bundle is still pending and answerable. */
const STILL_PENDING: readonly WaitFailure[] = [WaitFailure.Aborted, WaitFailure.TimedOut, WaitFailure.Detached, WaitFailure.ShuttingDown];

/** The in-session agent's blocking ask: create the bundle, wait for it, detach when the wait breaks off. */
@Injectable()
export class AgentAskService implements AgentAskEndings {
  constructor(
    private readonly asks: AskService,
    private readonly waiters: WaiterStore,
    private readonly lifecycle: ClarificationLifecycleService,
    private readonly bundles: BundleRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates the bundle and parks the agent's wait on it: `listener` gets a progress tick every
   * ASK_PROGRESS_INTERVAL_MS, then, once, the answer or the error the ask fails with. Resolves with
   * the parked wait (to end it early); once parked, nothing of this call stays referenced.
   */
  async ask(agent: SessionAgent, questions: unknown, context: unknown, options: AgentAskOptions, listener: AgentAskListener): Promise<ParkedWait> {
    const { request, resolved } = await this.asks.ask({
      sessionId: agent.sessionId,
      askedBy: { kind: 'agent', id: agent.sessionId },
      questions,
      context,
      agentWaitsHere: true,
      expiresInSeconds: options.expiresInSeconds,
      routing: options.routing,
      action: options.action,
    });
    if (resolved !== undefined) {
      // Told on the next turn of the event loop: the caller takes the returned handle (and is ready
      // for the answer, as a detached MCP call is) before the answer comes.
      setImmediate(() => listener.answered(resolved));
      return { abort: () => undefined };
    }
    const ask = new ParkedAgentAsk(agent.sessionId, request.pending_id, listener, this, this.config.askProgressIntervalMs);
    // Aborted while the bundle was created: the wait ends at once (the agent detached, the bundle pending).
    if (options.signal.aborted) ask.ended(WaitFailure.Aborted);
    // Attached in the same tick the ask committed (no answer can be decided here in between; other
    // replicas see the presence the ask recorded), so nothing needs to be read again.
    else ask.parked = this.waiters.park(request.pending_id, { role: WaiterRole.Agent, timeoutMs: this.config.askTimeoutMs }, ask);
    return ask;
  }

  /** What an ask whose wait ended fails with; an agent that stopped waiting (abort, its bound) is detached first. */
  async endedError(sessionId: string, pendingId: string, reason: WaitFailure): Promise<unknown> {
    if (reason === WaitFailure.Aborted || reason === WaitFailure.TimedOut) await this.lifecycle.detachAgent(sessionId);
    if (reason === WaitFailure.Expired) {
      const expired = deadlinePassed(await this.bundles.findBundle(pendingId));
      if (expired) return expired;
    }
    if (STILL_PENDING.includes(reason)) {
      return new ClarificationError(ClarificationErrorCode.WaitEnded, `stopped waiting for an answer (${reason}); the question stays pending as ${pendingId}`);
    }
    return waitEnded(reason);
  }
}
