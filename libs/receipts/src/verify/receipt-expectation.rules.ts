import { ReceiptError } from '../receipts.errors.js';
import type { ReceiptClaims, ReceiptExpectation, ReceiptIdentity, ReceiptSelections } from './receipt.types.js';

const EXPECTATION_FIELDS = new Set(['pending_id', 'outcome', 'selections', 'asked_by']);
const IDENTITY_KINDS = new Set(['user', 'agent', 'admin', 'synthetic']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function selectionsOf(value: unknown, field: string): ReceiptSelections {
  if (!isObject(value)) throw ReceiptError.invalid(`${field} must be an object of option id arrays per question id`);
  const selections: ReceiptSelections = {};
  for (const [questionId, options] of Object.entries(value)) {
    if (!Array.isArray(options) || options.some((option) => typeof option !== 'string')) {
      throw ReceiptError.invalid(`${field}.${questionId} must be an array of option ids`);
    }
    selections[questionId] = options as string[];
  }
  return selections;
}

function identityOf(value: unknown, field: string): ReceiptIdentity {
  if (!isObject(value) || typeof value.kind !== 'string' || !IDENTITY_KINDS.has(value.kind)) {
    throw ReceiptError.invalid(`${field}.kind must be one of user, agent, admin, synthetic`);
  }
  if (value.id !== null && typeof value.id !== 'string') throw ReceiptError.invalid(`${field}.id must be a string or null`);
  const extra = Object.keys(value).find((key) => key !== 'kind' && key !== 'id');
  if (extra !== undefined) throw ReceiptError.invalid(`${field}.${extra} is not a field of an identity`);
  return { kind: value.kind, id: value.id };
}

/** The `expect` of a verification or redemption request, validated (a 400 naming the field); undefined when absent. */
export function parseExpectation(value: unknown): ReceiptExpectation | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw ReceiptError.invalid('expect must be an object {pending_id?, outcome?, selections?, asked_by?}');
  const extra = Object.keys(value).find((key) => !EXPECTATION_FIELDS.has(key));
  if (extra !== undefined) throw ReceiptError.invalid(`expect.${extra} is not a field of an expectation`);
  const expectation: ReceiptExpectation = {};
  if (value.pending_id !== undefined) {
    if (typeof value.pending_id !== 'string') throw ReceiptError.invalid('expect.pending_id must be a string');
    expectation.pending_id = value.pending_id;
  }
  if (value.outcome !== undefined) {
    if (value.outcome !== 'answered' && value.outcome !== 'rejected') throw ReceiptError.invalid('expect.outcome must be "answered" or "rejected"');
    expectation.outcome = value.outcome;
  }
  if (value.selections !== undefined) expectation.selections = selectionsOf(value.selections, 'expect.selections');
  if (value.asked_by !== undefined) expectation.asked_by = identityOf(value.asked_by, 'expect.asked_by');
  return expectation;
}

function sameOptions(chosen: unknown, expected: readonly string[]): boolean {
  if (!Array.isArray(chosen)) return false;
  const options: unknown[] = chosen;
  const wanted = new Set<unknown>(expected);
  return wanted.size === new Set(options).size && options.every((option) => wanted.has(option));
}

/** The expectation's fields the claims do not satisfy (`selections.<question id>` per question): empty when it holds. */
export function unmetExpectations(claims: ReceiptClaims, expectation: ReceiptExpectation): string[] {
  const unmet: string[] = [];
  if (expectation.pending_id !== undefined && claims.sub !== expectation.pending_id) unmet.push('pending_id');
  if (expectation.outcome !== undefined && claims.outcome !== expectation.outcome) unmet.push('outcome');
  for (const [questionId, options] of Object.entries(expectation.selections ?? {})) {
    if (!sameOptions(Object.hasOwn(claims.selections, questionId) ? claims.selections[questionId] : undefined, options)) unmet.push(`selections.${questionId}`);
  }
  const asker = expectation.asked_by;
  if (asker !== undefined && (claims.asked_by.kind !== asker.kind || claims.asked_by.id !== asker.id)) unmet.push('asked_by');
  return unmet;
}
