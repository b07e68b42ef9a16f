import canonicalize from 'canonicalize';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet, jwtVerify } from 'jose';
import type { components } from './generated/openapi.js';

/** The action an answer authorizes: what the agent asked permission to do. */
export interface ReceiptAction {
  name: string;
  arguments: Record<string, unknown>;
}

/** The claims of a Parley receipt (docs/receipts.md), as the server's OpenAPI document describes them. */
export type ReceiptClaims = components['schemas']['ReceiptClaimsDoc'];

/** Why a receipt does not verify (the server's verification route answers the same reasons). */
export type ReceiptInvalidReason = NonNullable<components['schemas']['ReceiptVerdictDoc']['reason']>;

export type ReceiptVerdict =
  | { valid: true; claims: ReceiptClaims }
  | { valid: false; reason: Exclude<ReceiptInvalidReason, 'expectation_mismatch'> }
  | { valid: false; reason: 'expectation_mismatch'; mismatch: string[] };

/** A redemption: true exactly once per receipt; else why nothing was spent. */
export type Redemption =
  | { redeemed: true; claims: ReceiptClaims }
  | { redeemed: false; reason: Exclude<ReceiptInvalidReason, 'expectation_mismatch'> | 'already_redeemed' }
  | { redeemed: false; reason: 'expectation_mismatch'; mismatch: string[] };

/** Who asked or answered, as a receipt names them. */
export interface ReceiptIdentity {
  kind: 'user' | 'agent' | 'admin' | 'synthetic';
  id: string | null;
}

/**
 * What the executor requires the receipt to say; each field given must hold. `selections`: for each
 * question named, exactly these option ids were chosen (questions not named are not checked).
 */
export interface ReceiptExpectation {
  pending_id?: string;
  outcome?: 'answered' | 'rejected';
  selections?: Record<string, string[]>;
  asked_by?: ReceiptIdentity;
}

export interface VerifyReceiptOptions {
  /** The action about to run: the receipt must have been signed over exactly this one (key order does not matter). */
  action?: ReceiptAction;
  /** The server's key set, fetched once; or `jwksUrl` (`<server>/.well-known/jwks.json`), fetched and cached by jose. */
  jwks?: JSONWebKeySet;
  jwksUrl?: string | URL;
  /** The issuer to require (the server's PUBLIC_URL, or `parley`); unchecked when absent. */
  issuer?: string;
  /** Verify as of this instant (default now). */
  currentDate?: Date;
  /** What the receipt must say, else `expectation_mismatch` with the fields that do not hold. */
  expect?: ReceiptExpectation;
}

function sameOptions(chosen: unknown, expected: readonly string[]): boolean {
  if (!Array.isArray(chosen)) return false;
  const wanted = new Set(expected);
  return wanted.size === new Set(chosen).size && chosen.every((option) => wanted.has(option as string));
}

/** The expectation's fields the claims do not satisfy (`selections.<question id>` per question), as the server reports them. */
export function unmetExpectations(claims: ReceiptClaims, expectation: ReceiptExpectation): string[] {
  const unmet: string[] = [];
  if (expectation.pending_id !== undefined && claims.sub !== expectation.pending_id) unmet.push('pending_id');
  if (expectation.outcome !== undefined && claims.outcome !== expectation.outcome) unmet.push('outcome');
  const selections: Record<string, unknown> = claims.selections;
  for (const [questionId, options] of Object.entries(expectation.selections ?? {})) {
    if (!sameOptions(Object.hasOwn(selections, questionId) ? selections[questionId] : undefined, options)) unmet.push(`selections.${questionId}`);
  }
  const asker = expectation.asked_by;
  if (asker !== undefined && (claims.asked_by.kind !== asker.kind || claims.asked_by.id !== asker.id)) unmet.push('asked_by');
  return unmet;
}

const TEXT = new TextEncoder();
const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', TEXT.encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** An action's digest as Parley signs it: SHA-256 (hex) over the RFC 8785 canonical JSON of `{name, arguments}`. */
export function actionDigest(action: ReceiptAction): Promise<string> {
  return sha256Hex(canonicalize({ name: action.name, arguments: action.arguments }) ?? '');
}

/** A resolution's digest as Parley signs it: SHA-256 (hex) over the canonical JSON of `{answers, rejected}`. */
export function answersDigest(resolution: { answers: unknown[]; rejected: boolean }): Promise<string> {
  return sha256Hex(canonicalize({ answers: resolution.answers, rejected: resolution.rejected }) ?? '');
}

function keySetOf(options: VerifyReceiptOptions) {
  if (options.jwks) return createLocalJWKSet(options.jwks);
  if (!options.jwksUrl) throw new TypeError('verifyReceipt needs the server key set: jwks or jwksUrl');
  const url = String(options.jwksUrl);
  let set = remoteSets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url));
    remoteSets.set(url, set);
  }
  return set;
}

/**
 * Checks a receipt offline, against the server's published keys: the signature (Ed25519), the
 * expiry, — given the action the executor is about to run — that the receipt was signed over it, and
 * — given an expectation — that it says what the executor requires. Offline, it cannot tell a receipt
 * whose answer was rolled back, nor one already spent: redeem it (`Parley.redeemReceipt`) before acting.
 */
export async function verifyReceipt(receipt: string, options: VerifyReceiptOptions): Promise<ReceiptVerdict> {
  try {
    const header = decodeProtectedHeader(receipt);
    if (header.alg !== 'EdDSA' || typeof header.kid !== 'string') return { valid: false, reason: 'malformed' };
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  let claims: ReceiptClaims;
  try {
    const verified = await jwtVerify(receipt, keySetOf(options), {
      algorithms: ['EdDSA'],
      typ: 'parley-receipt+jwt',
      ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
      ...(options.currentDate === undefined ? {} : { currentDate: options.currentDate }),
    });
    claims = verified.payload as unknown as ReceiptClaims;
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) return { valid: false, reason: 'unknown_key' };
    if (error instanceof errors.JWSSignatureVerificationFailed) return { valid: false, reason: 'bad_signature' };
    if (error instanceof errors.JWTExpired) return { valid: false, reason: 'expired' };
    return { valid: false, reason: 'malformed' };
  }
  if (options.action !== undefined && claims.action_digest !== (await actionDigest(options.action))) return { valid: false, reason: 'action_mismatch' };
  const unmet = options.expect === undefined ? [] : unmetExpectations(claims, options.expect);
  if (unmet.length > 0) return { valid: false, reason: 'expectation_mismatch', mismatch: unmet };
  return { valid: true, claims };
}
