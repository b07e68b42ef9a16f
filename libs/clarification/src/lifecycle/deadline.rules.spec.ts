import { ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { BundleRow, BundleRowMetadata } from '../bundle/clarification.types.js';
import { deadlinePassed, expiredByDeadline, expiresAtOf, MAX_EXPIRES_IN_SECONDS, MIN_EXPIRES_IN_SECONDS, normalizeDeadline } from './deadline.rules.js';
import { bundleRows } from '../../../../test/support/bundle-rows.js';

/** An ask's optional deadline (`expires_in_seconds`) and what a bundle's rows say about it. */

const rows = (...metadata: Array<Partial<BundleRowMetadata>>): BundleRow[] => bundleRows('bundle-1', ...metadata);

describe('normalizeDeadline', () => {
  it('absent (or null) means no deadline', () => {
    expect(normalizeDeadline(undefined)).toBeUndefined();
    expect(normalizeDeadline(null)).toBeUndefined();
  });

  it('accepts whole seconds from one second to thirty days, both ends included', () => {
    expect(MIN_EXPIRES_IN_SECONDS).toBe(1);
    expect(MAX_EXPIRES_IN_SECONDS).toBe(2_592_000);
    expect(normalizeDeadline(1)).toBe(1);
    expect(normalizeDeadline(3_600)).toBe(3_600);
    expect(normalizeDeadline(2_592_000)).toBe(2_592_000);
  });

  it.each([0, -5, 2_592_001, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '60', true])('refuses %p with a validation error naming the range', (value) => {
    expect(() => normalizeDeadline(value)).toThrow(
      expect.objectContaining({ code: ClarificationErrorCode.Validation, message: 'expires_in_seconds must be an integer from 1 to 2592000 (30 days)' }),
    );
  });
});

describe('what the rows say about a deadline', () => {
  it('expiresAtOf: the first row\'s expires_at, else null', () => {
    expect(expiresAtOf(rows({ expires_at: '2026-01-02T00:00:00.000Z' }, {}))).toBe('2026-01-02T00:00:00.000Z');
    expect(expiresAtOf(rows({}))).toBeNull();
    expect(expiresAtOf([])).toBeNull();
  });

  it('expiredByDeadline: only rows expired for the deadline count, not a bundle expired because its session ended', () => {
    expect(expiredByDeadline(rows({ status: 'expired', expired_reason: 'deadline' }))).toBe(true);
    expect(expiredByDeadline(rows({ status: 'pending' }, { status: 'expired', expired_reason: 'deadline' }))).toBe(true);
    expect(expiredByDeadline(rows({ status: 'expired' }))).toBe(false);
    expect(expiredByDeadline(rows({ status: 'expired', expired_reason: 'session_ended' }))).toBe(false);
    expect(expiredByDeadline(rows({ status: 'pending', expired_reason: 'deadline' }))).toBe(false);
  });

  it('deadlinePassed: a typed EXPIRED error (409) naming the deadline and the bundle — never a silent result', () => {
    const error = deadlinePassed(rows({ status: 'expired', expired_reason: 'deadline', expires_at: '2026-01-02T00:00:00.000Z' }));
    expect(error).toMatchObject({ code: ClarificationErrorCode.Expired, httpStatus: 409 });
    expect(error?.message).toBe(
      'the question expired unanswered at its deadline (2026-01-02T00:00:00.000Z); pending_id bundle-1 — do not proceed as if it were answered',
    );
    expect(deadlinePassed(rows({ status: 'expired' }))).toBeUndefined();
    expect(deadlinePassed(rows({ status: 'pending', expires_at: '2026-01-02T00:00:00.000Z' }))).toBeUndefined();
  });
});
