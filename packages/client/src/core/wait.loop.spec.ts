import type { WaitedResponse } from './outcome.types.js';
import { errorFromResponse, ParleyNotFoundError, ParleyUnreachableError } from './parley.errors.js';
import { waitForOutcome, type WaitCalls } from './wait.loop.js';
import type { BundleView } from './wire.types.js';

type Read = Pick<BundleView, 'pending_id' | 'status' | 'response' | 'resolved_by'>;
type Step = WaitedResponse | Error;

const ANSWERED: WaitedResponse = {
  pending_id: 'p1',
  answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }],
  rejected: false,
  reject_reason: '',
  responded_at: '2026-01-01T00:00:00.000Z',
};
const serverError = (status: number, code: string) => errorFromResponse(status, { error: code, code }, new Headers());
const read = (status: string): Read => ({ pending_id: 'p1', status: status as Read['status'], response: null, resolved_by: null });
const NO_DELAY = { backoff: { initialMs: 0, maxMs: 0 } };

/** A scripted server: each long poll takes the next step; reads answer `reads` in turn. */
function scripted(steps: Step[], reads: Read[] = []): WaitCalls & { polls: number } {
  const calls = {
    polls: 0,
    waitOnce: () => {
      const step = steps[calls.polls++];
      if (!step) throw new Error('the loop polled more than the script allows');
      return step instanceof Error ? Promise.reject(step) : Promise.resolve(step);
    },
    read: () => {
      const next = reads.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('the loop read more than the script allows'));
    },
  };
  return calls;
}

describe('waitForOutcome', () => {
  it('keeps waiting through refused connections, 503s and ended long polls, then reports the answer', async () => {
    const calls = scripted(
      [new ParleyUnreachableError('http://x', new Error('ECONNREFUSED')), serverError(503, 'UNAVAILABLE'), serverError(504, 'WAIT_ENDED'), ANSWERED],
      [read('pending')],
    );
    await expect(waitForOutcome(calls, 'p1', NO_DELAY)).resolves.toEqual({ status: 'answered', pendingId: 'p1', answers: ANSWERED.answers, respondedAt: ANSWERED.responded_at });
    expect(calls.polls).toBe(4);
  });

  it('maps a rejection, and each way a bundle goes away unanswered, to its status', async () => {
    await expect(waitForOutcome(scripted([{ ...ANSWERED, answers: [], rejected: true, reject_reason: 'no' }]), 'p1', NO_DELAY)).resolves.toMatchObject({ status: 'rejected', reason: 'no' });
    await expect(waitForOutcome(scripted([serverError(409, 'EXPIRED')]), 'p1', NO_DELAY)).resolves.toEqual({ status: 'expired', pendingId: 'p1' });
    await expect(waitForOutcome(scripted([serverError(504, 'WAIT_ENDED')], [read('cancelled')]), 'p1', NO_DELAY)).resolves.toEqual({ status: 'cancelled', pendingId: 'p1' });
    await expect(waitForOutcome(scripted([serverError(409, 'CONFLICT')], [read('inactive')]), 'p1', NO_DELAY)).resolves.toEqual({ status: 'superseded', pendingId: 'p1' });
    await expect(waitForOutcome(scripted([serverError(409, 'CONFLICT')], [read('expired')]), 'p1', NO_DELAY)).resolves.toEqual({ status: 'expired', pendingId: 'p1' });
  });

  it('a winner still being delivered is waited for, not reported', async () => {
    const calls = scripted([serverError(504, 'WAIT_ENDED'), ANSWERED], [read('delivering')]);
    await expect(waitForOutcome(calls, 'p1', NO_DELAY)).resolves.toMatchObject({ status: 'answered' });
  });

  it('a 4xx ends the wait with its typed error; the signal ends it too', async () => {
    await expect(waitForOutcome(scripted([serverError(404, 'NOT_FOUND')]), 'p1', NO_DELAY)).rejects.toBeInstanceOf(ParleyNotFoundError);
    const forever = scripted(Array.from({ length: 1000 }, () => serverError(503, 'UNAVAILABLE')));
    await expect(waitForOutcome(forever, 'p1', { backoff: { initialMs: 50, maxMs: 50 }, signal: AbortSignal.timeout(100) })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
