import { type BundleRowState, isRestored, settlement } from './bundle-state.js';
import { isRetryable, type Outcome, type Submission, type Surface } from './surfaces.js';

export interface RaceRound {
  outcomes: Array<[Surface, Outcome]>;
  rows: BundleRowState[];
  submissions: Record<Surface, Submission>;
}

/** What the answers stored on the rows say, in the envelope's terms. */
function stored(rows: readonly BundleRowState[]): { status: string; answers: unknown[] } {
  const status = rows[0]?.status ?? '';
  return { status, answers: status === 'answered' ? rows.map((row) => row.response) : [] };
}

/**
 * The §1b invariants of one round. Returns the winning surface (information only), or undefined when
 * no answer became final (the bundle is pending again).
 */
export function checkRound({ outcomes, rows, submissions }: RaceRound): Surface | undefined {
  expect(settlement(rows)).not.toBe('delivering');
  const winners = outcomes.filter(([, outcome]) => outcome.kind === 'resolved' && outcome.envelope.claimed);
  const losers = outcomes.filter(([, outcome]) => outcome.kind === 'resolved' && !outcome.envelope.claimed);
  const failures = outcomes.filter(([, outcome]) => outcome.kind === 'error');
  // Whoever got no final answer was told to retry — nobody is told "no longer active" about a bundle that is.
  expect(failures.filter(([, outcome]) => !isRetryable(outcome))).toEqual([]);
  if (settlement(rows) === 'open') {
    expect({ winners, losers }).toEqual({ winners: [], losers: [] });
    expect(isRestored(rows)).toBe(true);
    return undefined;
  }
  expect(winners).toHaveLength(1);
  const [surface, won] = winners[0] as [Surface, Outcome & { kind: 'resolved' }];
  const final = stored(rows);
  const submitted = submissions[surface];
  expect({ status: won.envelope.status, answers: won.envelope.response.answers }).toEqual(
    submitted.kind === 'answer' ? { status: 'answered', answers: submitted.answers } : { status: 'rejected', answers: [] },
  );
  expect(final).toEqual({ status: won.envelope.status, answers: won.envelope.response.answers });
  for (const [, outcome] of losers) {
    const { envelope } = outcome as Outcome & { kind: 'resolved' };
    expect({ status: envelope.status, answers: envelope.response.answers, rejected: envelope.response.rejected }).toEqual({
      ...final,
      rejected: final.status === 'rejected',
    });
  }
  return surface;
}
