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

export type ReceiptVerdict = { valid: true; claims: ReceiptClaims } | { valid: false; reason: ReceiptInvalidReason };

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
 * expiry and — given the action the executor is about to run — that the receipt was signed over it.
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
  return { valid: true, claims };
}
