import { type BundleRow, type BundleRowMetadata, ClarificationStatus } from './clarification.types.js';
import { finalResolvedBy, parseResolvedBy, resolvedByOf, winnerIdentity } from './resolved-by.rules.js';
import { bundleRows } from '../../../../test/support/bundle-rows.js';

/** Who answered a bundle: what the claim records, and how it is read back from the rows. */

const STORED = { kind: 'user', user_id: 'u1', name: 'Ada', surface: 'web', at: '2026-03-04T12:30:00+02:00' };
const READ = { kind: 'user', user_id: 'u1', name: 'Ada', surface: 'web', at: '2026-03-04T10:30:00.000Z' };

const rows = (...metadata: Array<Partial<BundleRowMetadata>>): BundleRow[] => bundleRows('bundle', ...metadata);

describe('winnerIdentity', () => {
  it('records the user behind a user caller, and no user for the other kinds', () => {
    expect(winnerIdentity({ kind: 'user', userId: 'u1' }, 'rest')).toEqual({ kind: 'user', user_id: 'u1', surface: 'rest' });
    expect(winnerIdentity({ kind: 'admin' }, 'graphql')).toEqual({ kind: 'admin', user_id: null, surface: 'graphql' });
    expect(winnerIdentity({ kind: 'synthetic' }, 'mcp')).toEqual({ kind: 'synthetic', user_id: null, surface: 'mcp' });
    expect(winnerIdentity({ kind: 'agent', sessionId: 's', taskId: 't', openedBy: 'admin' }, 'command')).toEqual({ kind: 'agent', user_id: null, surface: 'command' });
  });
});

describe('parseResolvedBy', () => {
  it('reads a stored winner, its time normalized to UTC milliseconds', () => {
    expect(parseResolvedBy(STORED)).toEqual(READ);
  });

  it('a user_id or name that is not a string reads as null', () => {
    expect(parseResolvedBy({ ...STORED, user_id: 7, name: undefined })).toEqual({ ...READ, user_id: null, name: null });
  });

  it.each([
    ['absent', undefined],
    ['null', null],
    ['not an object', 'user'],
    ['an unknown kind', { ...STORED, kind: 'robot' }],
    ['no kind', { ...STORED, kind: undefined }],
    ['an unknown surface', { ...STORED, surface: 'sms' }],
    ['no time', { ...STORED, at: undefined }],
    ['an unreadable time', { ...STORED, at: 'yesterday' }],
    ['a time that is not a string', { ...STORED, at: 1_700_000_000_000 }],
  ])('%s is no winner (null)', (_case, value) => {
    expect(parseResolvedBy(value)).toBeNull();
  });
});

describe('resolvedByOf and finalResolvedBy', () => {
  const answered = (resolvedBy: unknown): Partial<BundleRowMetadata> => ({ status: ClarificationStatus.Answered, resolved_by: resolvedBy });

  it('the winner is read from the winner\'s rows: the first, in D2 order, that records one', () => {
    const later = { ...STORED, kind: 'admin', user_id: null, name: null, at: '2026-03-05T00:00:00.000Z' };
    // m1 is an older legacy answer (its own resolved_by unreadable), m2 and m3 the latest claim's rows.
    const bundle = rows(answered({ kind: 'user', at: '2026-03-01T00:00:00.000Z' }), answered(later), answered(later));
    expect(resolvedByOf(bundle)).toEqual({ kind: 'admin', user_id: null, name: null, surface: 'web', at: '2026-03-05T00:00:00.000Z' });
  });

  it('nobody answered, or no row records who did ⇒ null', () => {
    expect(resolvedByOf(rows({ status: ClarificationStatus.Pending }))).toBeNull();
    expect(resolvedByOf(rows(answered(undefined)))).toBeNull();
  });

  it('is reported only once the answer is final: not while active, not while its delivery is pending', () => {
    const bundle = rows(answered(STORED));
    expect(finalResolvedBy(bundle, false)).toEqual(READ);
    expect(finalResolvedBy(bundle, true)).toBeNull();
    expect(finalResolvedBy(rows({ ...answered(STORED), response_delivery_pending: true }), false)).toBeNull();
  });
});
