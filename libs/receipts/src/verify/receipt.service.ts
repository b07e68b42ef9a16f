import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import { APP_CONFIG, type AppConfig } from '#config';
import { actionDigest, parseAction } from '../action/action.rules.js';
import type { Action } from '../action/action.types.js';
import { canonicalDigest } from '../action/canonical-digest.js';
import { RECEIPT_ALG, ReceiptKeysService } from '../keys/receipt-keys.service.js';
import { type ReceiptRecord, ReceiptRecordRepository } from '../redeem/receipt-record.repository.js';
import { ReceiptError } from '../receipts.errors.js';
import { parseExpectation, unmetExpectations } from './receipt-expectation.rules.js';
import {
  type PlainInvalidReason,
  type ReceiptClaims,
  type ReceiptExpectation,
  ReceiptInvalidReason,
  type ReceiptSelections,
  type ReceiptSubject,
  type ReceiptVerdict,
} from './receipt.types.js';

/** The JWS `typ` of a receipt. */
export const RECEIPT_TYPE = 'parley-receipt+jwt';

/** The claims a receipt must carry to be one (besides `action_digest`, present only with an action). */
const REQUIRED_CLAIMS = ['iss', 'sub', 'jti', 'iat', 'exp', 'outcome', 'answers_digest', 'selections', 'asked_by', 'answered_by', 'surface', 'session_id', 'task_id', 'workspace_id'];

/** A resolution's digest: SHA-256 over the canonical JSON of `{answers, rejected}` as every surface reports them. */
export function answersDigest(resolution: ReceiptSubject['resolution']): string {
  return canonicalDigest({ answers: resolution.answers, rejected: resolution.rejected });
}

/** A receipt's verdict on its signature, action and expectation, with what its bundle records of it. */
export interface ReceiptStanding {
  verdict: ReceiptVerdict;
  record: ReceiptRecord;
}

const NOT_RECORDED: ReceiptRecord = { recorded: false, opened_by: null };

/** The option ids chosen per question id; free text stays out of a receipt, and a rejection chose nothing. */
function selectionsOf(resolution: ReceiptSubject['resolution']): ReceiptSelections {
  if (resolution.rejected) return {};
  return Object.fromEntries(resolution.answers.map((answer) => [answer.question_id, [...answer.selected_options]]));
}

/** Signs resolution receipts (one Ed25519 signature each) and verifies them against the published keys. */
@Injectable()
export class ReceiptService {
  constructor(
    private readonly keys: ReceiptKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly records: ReceiptRecordRepository,
  ) {}

  /** The issuer every receipt names: PUBLIC_URL, or `parley`. */
  get issuer(): string {
    return this.config.publicUrl ?? 'parley';
  }

  /** The receipt of one resolution: a compact JWS (EdDSA) of its claims, signed with the current key. */
  async issue(subject: ReceiptSubject, now = new Date()): Promise<string> {
    const { kid, key } = await this.keys.signingKey();
    const iat = Math.floor(now.getTime() / 1000);
    const claims: Omit<ReceiptClaims, 'iss' | 'sub' | 'jti' | 'iat' | 'exp'> = {
      outcome: subject.outcome,
      answers_digest: answersDigest(subject.resolution),
      ...(subject.actionDigest === null ? {} : { action_digest: subject.actionDigest }),
      selections: selectionsOf(subject.resolution),
      asked_by: subject.askedBy,
      answered_by: subject.answeredBy,
      surface: subject.surface,
      session_id: subject.sessionId,
      task_id: subject.taskId,
      workspace_id: subject.workspaceId,
    };
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: RECEIPT_ALG, kid, typ: RECEIPT_TYPE })
      .setIssuer(this.issuer)
      .setSubject(subject.pendingId)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.config.receiptTtlSeconds)
      .sign(key);
  }

  /** A verification or redemption request's action and expectation, validated (a 400 naming the field). */
  parseRequest(action: unknown, expectation: unknown): { action: Action | undefined; expectation: ReceiptExpectation | undefined } {
    let parsedAction: Action | undefined;
    if (action !== undefined) {
      const parsed = parseAction(action);
      if ('problem' in parsed) throw ReceiptError.invalid(parsed.problem);
      parsedAction = parsed.action;
    }
    return { action: parsedAction, expectation: parseExpectation(expectation) };
  }

  /** A verification request: the action and expectation, when given, must be ones (else a 400 naming the field). */
  verifyRequest(receipt: string, action: unknown, expectation: unknown): Promise<ReceiptVerdict> {
    const request = this.parseRequest(action, expectation);
    return this.verify(receipt, request.action, request.expectation);
  }

  /**
   * Whether `receipt` is one this service signed, unexpired, over `action` when given, saying what
   * `expectation` requires — and still recorded by its bundle (a rolled-back answer's receipt is revoked).
   */
  async verify(receipt: string, action?: Action, expectation?: ReceiptExpectation): Promise<ReceiptVerdict> {
    const standing = await this.standing(receipt, action, expectation);
    if (!standing.verdict.valid || standing.record.recorded) return standing.verdict;
    return { valid: false, reason: ReceiptInvalidReason.Revoked };
  }

  /** The verdict before the database is asked, and — once it is a valid receipt — what the database records of it. */
  async standing(receipt: string, action?: Action, expectation?: ReceiptExpectation): Promise<ReceiptStanding> {
    const verdict = await this.verifySigned(receipt, action);
    if (!verdict.valid) return { verdict, record: NOT_RECORDED };
    const unmet = expectation === undefined ? [] : unmetExpectations(verdict.claims, expectation);
    if (unmet.length > 0) return { verdict: { valid: false, reason: ReceiptInvalidReason.ExpectationMismatch, mismatch: unmet }, record: NOT_RECORDED };
    return { verdict, record: await this.records.find(verdict.claims.sub, receipt, verdict.claims.session_id) };
  }

  /** Whether `receipt` is one this service signed, unexpired — and, given an action, signed over that action (no database read). */
  private async verifySigned(receipt: string, action?: Action): Promise<ReceiptVerdict> {
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(receipt);
      kid = header.alg === RECEIPT_ALG && typeof header.kid === 'string' ? header.kid : undefined;
    } catch {
      kid = undefined;
    }
    if (kid === undefined || receipt.split('.').length !== 3) return { valid: false, reason: ReceiptInvalidReason.Malformed };
    const key = await this.keys.verifyingKey(kid);
    if (key === undefined) return { valid: false, reason: ReceiptInvalidReason.UnknownKey };
    let claims: ReceiptClaims;
    try {
      const verified = await jwtVerify(receipt, key, { algorithms: [RECEIPT_ALG], typ: RECEIPT_TYPE });
      claims = verified.payload as unknown as ReceiptClaims;
    } catch (error) {
      return { valid: false, reason: reasonOf(error) };
    }
    if (REQUIRED_CLAIMS.some((name) => !(name in claims))) return { valid: false, reason: ReceiptInvalidReason.Malformed };
    if (action !== undefined && claims.action_digest !== actionDigest(action)) {
      return { valid: false, reason: ReceiptInvalidReason.ActionMismatch };
    }
    return { valid: true, claims };
  }
}

function reasonOf(error: unknown): PlainInvalidReason {
  if (error instanceof errors.JWSSignatureVerificationFailed) return ReceiptInvalidReason.BadSignature;
  if (error instanceof errors.JWTExpired) return ReceiptInvalidReason.Expired;
  return ReceiptInvalidReason.Malformed;
}
