import { ParleyAbortedError } from './parley.errors.js';

/** How long to wait between attempts: exponential, capped, with full jitter. */
export interface BackoffOptions {
  /** The first delay's ceiling (ms). */
  initialMs: number;
  /** No delay is longer than this (ms). */
  maxMs: number;
  /** A number in [0, 1): Math.random unless a test pins it. */
  random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 200, maxMs: 5_000 };

/**
 * The delay before retry number `attempt` (0 for the first): uniformly drawn between half the
 * ceiling and the ceiling, the ceiling doubling each attempt up to `maxMs`. Jitter spreads the agents
 * a restarted server sees reconnecting at once; the floor keeps a retry from hammering it.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.max(0, attempt));
  const random = options.random ?? Math.random;
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** Resolves after `ms`, or rejects with ParleyAbortedError as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ParleyAbortedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ParleyAbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
