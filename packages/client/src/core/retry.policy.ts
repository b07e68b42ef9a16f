import { backoffDelay, type BackoffOptions, sleep } from './backoff.policy.js';
import { isTransient, ParleyRateLimitedError } from './parley.errors.js';

/** The delay before the next attempt after `error`: the backoff, or longer when the server said `Retry-After`. */
export function delayAfter(error: unknown, attempt: number, backoff: BackoffOptions): number {
  const delay = backoffDelay(attempt, backoff);
  return error instanceof ParleyRateLimitedError && error.retryAfterMs !== undefined ? Math.max(delay, error.retryAfterMs) : delay;
}

/**
 * Runs `call` up to `attempts` times while it fails transiently (unreachable, 5xx, 429), sleeping a
 * jittered backoff between tries; the last error, or any final one (4xx), is thrown. Only for calls
 * that are safe to repeat: asking (the server returns the same pending_id for the same questions
 * while they are pending), reading, and answering (a repeat loses to itself and reports the winner).
 */
export async function withRetries<T>(call: () => Promise<T>, options: { attempts: number; backoff: BackoffOptions; signal?: AbortSignal }): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!isTransient(error) || attempt + 1 >= options.attempts) throw error;
      await sleep(delayAfter(error, attempt, options.backoff), options.signal);
    }
  }
}
