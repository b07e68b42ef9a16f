import { Injectable } from '@nestjs/common';
import { AuthorizationError, type Caller, callerId } from '#authorization';
import type { Action } from '../action/action.types.js';
import { ReceiptError } from '../receipts.errors.js';
import { ReceiptService } from '../verify/receipt.service.js';
import {
  type ReceiptClaims,
  type ReceiptExpectation,
  type ReceiptIdentity,
  ReceiptInvalidReason,
  RedemptionRefusal,
  type RedemptionResult,
} from '../verify/receipt.types.js';
import { ReceiptRecordRepository } from './receipt-record.repository.js';

/** An identity as `callerId` spells it: `user:<id>`, `agent:<session id>`, `admin`, `synthetic`. */
function identityKey(identity: ReceiptIdentity): string {
  return identity.id === null ? identity.kind : `${identity.kind}:${identity.id}`;
}

/**
 * Spending a receipt: an executor about to act redeems it once. Only the identity that asked — the
 * session's agent (its agent token) or the identity that opened the session, or whoever the receipt
 * names as the asker — may spend it; anyone else who holds it (a loser, a webhook receiver) is
 * refused and spends nothing.
 */
@Injectable()
export class ReceiptRedemptionService {
  constructor(
    private readonly receipts: ReceiptService,
    private readonly records: ReceiptRecordRepository,
  ) {}

  async redeem(caller: Caller, receipt: string, action: unknown, expectation: unknown): Promise<RedemptionResult> {
    const request = this.receipts.parseRequest(action, expectation);
    if (request.action === undefined) throw ReceiptError.invalid('action is required: the action about to run');
    return this.redeemParsed(caller, receipt, request.action, request.expectation);
  }

  private async redeemParsed(caller: Caller, receipt: string, action: Action, expectation: ReceiptExpectation | undefined): Promise<RedemptionResult> {
    const { verdict, record } = await this.receipts.standing(receipt, action, expectation);
    if (!verdict.valid) return verdict.reason === ReceiptInvalidReason.ExpectationMismatch ? { redeemed: false, reason: verdict.reason, mismatch: verdict.mismatch } : { redeemed: false, reason: verdict.reason };
    if (!this.mayRedeem(caller, verdict.claims, record.opened_by)) {
      throw AuthorizationError.forbidden('only the identity that asked (the session\'s agent or the identity that opened the session) may redeem this receipt');
    }
    if (!record.recorded) return { redeemed: false, reason: ReceiptInvalidReason.Revoked };
    const spent = await this.records.redeem({ jti: verdict.claims.jti, pendingId: verdict.claims.sub, redeemedBy: callerId(caller) });
    return spent ? { redeemed: true, claims: verdict.claims } : { redeemed: false, reason: RedemptionRefusal.AlreadyRedeemed };
  }

  private mayRedeem(caller: Caller, claims: ReceiptClaims, openedBy: string | null): boolean {
    const who = callerId(caller);
    return who === identityKey(claims.asked_by) || who === `agent:${claims.session_id}` || (openedBy !== null && openedBy !== '' && who === openedBy);
  }
}
