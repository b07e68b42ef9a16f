import { type BundleRow, type BundleRowMetadata, ClarificationStatus } from './clarification.types.js';
import { isPendingRow, Settlement, settlementOf, winnerStatus, winningRows } from './settlement.rules.js';
import { bundleRows } from '../../../../test/support/bundle-rows.js';

/**
 * Where a bundle stands with respect to a winner, from its rows alone: open, a claim being delivered,
 * or final — and, when final, which rows are the winner's (R2b).
 */

const EARLIER = { kind: 'user', user_id: 'u1', name: 'Ada', surface: 'rest', at: '2026-01-01T10:00:00.000Z' };
const LATER = { kind: 'admin', user_id: null, name: null, surface: 'graphql', at: '2026-01-01T11:00:00.000Z' };

const rows = (...metadata: Array<Partial<BundleRowMetadata>>): BundleRow[] => bundleRows('bundle', ...metadata);

/** A terminal row; without `resolvedBy` it is a legacy row no claim of ours wrote. */
const answered = (resolvedBy?: unknown): Partial<BundleRowMetadata> => ({ status: ClarificationStatus.Answered, resolved_by: resolvedBy });
const rejected = (resolvedBy?: unknown): Partial<BundleRowMetadata> => ({ status: ClarificationStatus.Rejected, resolved_by: resolvedBy });
const pending: Partial<BundleRowMetadata> = { status: ClarificationStatus.Pending };

describe('isPendingRow (the activeness rule\'s row test)', () => {
  it.each([
    [undefined, true],
    ['', true],
    ['pending', true],
    ['responding', false],
    ['answered', false],
    ['expired', false],
    ['something else', false],
  ])('status %p ⇒ %p', (status, expected) => {
    expect(isPendingRow(rows({ status })[0])).toBe(expected);
  });
});

describe('settlementOf', () => {
  it('an active bundle is open, even a mixed legacy bundle whose other rows are terminal (L12)', () => {
    expect(settlementOf(rows(answered(), pending), true)).toBe(Settlement.Open);
    expect(settlementOf(rows(answered(), answered()), true)).toBe(Settlement.Open);
  });

  it('an inactive bundle nobody answered is open: still pending, expired or cancelled', () => {
    expect(settlementOf(rows(pending, pending), false)).toBe(Settlement.Open);
    expect(settlementOf(rows({ status: ClarificationStatus.Expired }, { status: ClarificationStatus.Expired }), false)).toBe(Settlement.Open);
    expect(settlementOf(rows({ status: ClarificationStatus.Cancelled }), false)).toBe(Settlement.Open);
  });

  it('answered or rejected rows are final once delivered, delivering while any terminal row still waits for its delivery', () => {
    expect(settlementOf(rows(answered(EARLIER), answered(EARLIER)), false)).toBe(Settlement.Final);
    expect(settlementOf(rows(rejected(EARLIER), rejected(EARLIER)), false)).toBe(Settlement.Final);
    expect(settlementOf(rows(answered(EARLIER), { ...answered(EARLIER), response_delivery_pending: true }), false)).toBe(Settlement.Delivering);
    // Only `true` marks a delivery in flight.
    expect(settlementOf(rows({ ...answered(EARLIER), response_delivery_pending: false }), false)).toBe(Settlement.Final);
  });
});

describe('winningRows and winnerStatus (R2b)', () => {
  it('a finished mixed legacy bundle: the latest claim recorded on the rows is the winner, not the older terminal rows', () => {
    const bundle = rows(answered(EARLIER), answered(LATER), rejected(), answered(LATER));
    expect(winningRows(bundle).map((row) => row.id)).toEqual(['m2', 'm4']);
  });

  it('the latest claim is decided by time, not by position', () => {
    const bundle = rows(answered(LATER), rejected(EARLIER));
    expect(winningRows(bundle).map((row) => row.id)).toEqual(['m1']);
    expect(winnerStatus(bundle)).toBe(ClarificationStatus.Answered);
  });

  it('rows no claim recorded itself on (a legacy bundle terminal throughout) are all the winner\'s; pending rows never are', () => {
    const bundle = rows(rejected(), pending, answered({ surface: 'rest' }));
    expect(winningRows(bundle).map((row) => row.id)).toEqual(['m1', 'm3']);
    expect(winnerStatus(bundle)).toBe(ClarificationStatus.Rejected);
  });

  it('no terminal row ⇒ no winner', () => {
    expect(winningRows(rows(pending, { status: ClarificationStatus.Expired }))).toEqual([]);
    expect(winnerStatus(rows(pending))).toBeUndefined();
  });
});
