import type { ClarificationResponse } from '../bundle/clarification.types.js';
import type { ParkedWait, WaitFailure, WaitListener } from '../wait/waiter.store.js';

/** Who an in-session ask answers (the MCP tool call): progress while it waits, then its outcome, once. */
export interface AgentAskListener {
  progress(tick: number, pendingId: string): void;
  answered(response: ClarificationResponse): void;
  failed(error: unknown): void;
}

/** What an ended wait of an ask fails with (the agent detached when it stopped waiting). */
export interface AgentAskEndings {
  endedError(sessionId: string, pendingId: string, reason: WaitFailure): Promise<unknown>;
}

/**
 * A parked in-session ask (less memory per blocked agent, docs/benchmarks.md): the waiter's listener,
 * passing the outcome straight to the caller's listener, and its progress timer — no promise chain,
 * no async frame between the waiter and the tool call's answer.
 */
export class ParkedAgentAsk implements WaitListener, ParkedWait {
  parked: ParkedWait | undefined;
  private tick = 0;
  private readonly progress: NodeJS.Timeout;

  constructor(
    private readonly sessionId: string,
    private readonly pendingId: string,
    private readonly listener: AgentAskListener,
    private readonly endings: AgentAskEndings,
    progressIntervalMs: number,
  ) {
    // Armed before the wait is parked: a wait that ends at once (an aborted call) clears it.
    this.progress = setInterval(ParkedAgentAsk.tickOf, progressIntervalMs, this);
  }

  private static tickOf(this: void, ask: ParkedAgentAsk): void {
    ask.tick += 1;
    ask.listener.progress(ask.tick, ask.pendingId);
  }

  abort(): void {
    this.parked?.abort();
  }

  answered(response: ClarificationResponse): void {
    clearInterval(this.progress);
    this.listener.answered(response);
  }

  ended(reason: WaitFailure): void {
    clearInterval(this.progress);
    void this.endings.endedError(this.sessionId, this.pendingId, reason).then(
      (error) => this.listener.failed(error),
      (error: unknown) => this.listener.failed(error),
    );
  }
}
