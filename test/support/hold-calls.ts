import { jest } from '@jest/globals';
import type { MethodLikeKeys } from 'jest-mock';

/**
 * Holds every call of `object[method]` until `release()`, then lets each one through to the real
 * method: a test can act while calls are known to be in flight. `calls` is the spy (restored by
 * `jest.restoreAllMocks()`).
 */
export function holdCalls<T extends object, K extends MethodLikeKeys<T>>(object: T, method: K) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const real = (object[method] as (...args: unknown[]) => unknown).bind(object);
  const calls = jest.spyOn(object, method).mockImplementation((async (...args: unknown[]) => {
    await gate;
    return real(...args);
  }) as never);
  return { calls, release };
}
