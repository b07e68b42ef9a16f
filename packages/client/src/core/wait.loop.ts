import { type BackoffOptions, sleep } from './backoff.policy.js';
import { type Outcome, outcomeOfBundle, outcomeOfWait, type WaitedResponse } from './outcome.types.js';
import { isTransient, ParleyConflictError, ParleyServerError } from './parley.errors.js';
import { delayAfter } from './retry.policy.js';
import type { BundleView } from './wire.types.js';

/** The two reads the loop needs, so it can be driven by the client (and by a test double in unit specs). */
export interface WaitCalls {
  /** One long poll of `/wait`: the final response, or the typed error it ended with. */
  waitOnce(pendingId: string, signal?: AbortSignal): Promise<WaitedResponse>;
  /** The bundle's durable state (any replica answers it from the database). */
  read(pendingId: string, signal?: AbortSignal): Promise<Pick<BundleView, 'pending_id' | 'status' | 'response' | 'resolved_by'>>;
}

/**
 * One round: a long poll, and when it ends without an answer, one read to learn why. `undefined`
 * means "still pending: wait again" (the long poll's bound passed, the server is draining, the
 * agent was detached, a winner is still being delivered).
 */
async function round(calls: WaitCalls, pendingId: string, signal?: AbortSignal): Promise<Outcome | undefined> {
  try {
    return outcomeOfWait(pendingId, await calls.waitOnce(pendingId, signal));
  } catch (error) {
    // 409: no longer active without a winner. EXPIRED says which; otherwise the durable state does.
    if (error instanceof ParleyConflictError && error.code === 'EXPIRED') return { status: 'expired', pendingId };
    const ended = error instanceof ParleyServerError && error.code === 'WAIT_ENDED';
    if (error instanceof ParleyConflictError || ended) return outcomeOfBundle(await calls.read(pendingId, signal));
    throw error;
  }
}

/**
 * Waits for a bundle's outcome by its pending id, for as long as it takes: across long-poll bounds,
 * server restarts, a replica's death behind a load balancer, 503s while the database is away. Never
 * asks again — the pending id is the bundle, whichever process serves it. Transient failures back off
 * with jitter (reset once the server answers again); 4xx errors and the signal end the wait.
 */
export async function waitForOutcome(calls: WaitCalls, pendingId: string, options: { backoff: BackoffOptions; signal?: AbortSignal }): Promise<Outcome> {
  for (let failures = 0; ; ) {
    try {
      const outcome = await round(calls, pendingId, options.signal);
      if (outcome) return outcome;
      failures = 0;
    } catch (error) {
      if (!isTransient(error)) throw error;
      await sleep(delayAfter(error, failures, options.backoff), options.signal);
      failures += 1;
    }
  }
}
