import { backoffDelay, sleep } from './backoff.policy.js';
import { ParleyAbortedError } from './parley.errors.js';

describe('backoffDelay', () => {
  const options = (random: number) => ({ initialMs: 200, maxMs: 5_000, random: () => random });

  it('doubles its ceiling each attempt and draws between half the ceiling and the ceiling', () => {
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, options(0)))).toEqual([100, 200, 400, 800]);
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt, options(0.999999)))).toEqual([200, 400, 800, 1600]);
  });

  it('never exceeds maxMs, however many attempts failed', () => {
    expect(backoffDelay(40, options(0.999999))).toBe(5_000);
    expect(backoffDelay(40, options(0))).toBe(2_500);
  });

  it('jitters: two agents retrying at the same attempt wait different times', () => {
    expect(backoffDelay(3, options(0.1))).not.toBe(backoffDelay(3, options(0.9)));
  });
});

describe('sleep', () => {
  it('rejects with ParleyAbortedError once its signal fires', async () => {
    const controller = new AbortController();
    const slept = sleep(60_000, controller.signal);
    controller.abort();
    await expect(slept).rejects.toBeInstanceOf(ParleyAbortedError);
    await expect(sleep(10, AbortSignal.abort())).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
