import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, queryRow, queryRows, type SqlExecutor } from '#persistence';

export type ReceiptState = 'reserved' | 'send_started' | 'accepted' | 'rejected' | 'uncertain';
export type TerminalState = 'accepted' | 'rejected' | 'uncertain';

export interface ReceiptRow {
  caller_key: string;
  request_id: string;
  canonical_fingerprint: string;
  worker_id: string;
  state: ReceiptState;
  status: string;
  /** The stored envelope, byte for byte; set once the receipt is terminal. */
  envelope: string | null;
  owner_token_hash: string | null;
  owner_expires_at: Date | null;
  pending_id: string | null;
}

export interface ClaimRow {
  worker_id: string;
  caller_key: string;
  request_id: string;
  decision_ref: string;
  state: 'claimed' | 'send_started';
  expires_at: Date;
}

/** A receipt's identity: a request_id is unique within its caller (`callerId`), never across callers. */
export interface ReceiptKey {
  callerKey: string;
  requestId: string;
}

/** The fencing of one live request: its receipt owner token and, once claimed, its decision claim token. */
export interface Ownership extends ReceiptKey {
  ownerHash: string;
  workerId: string;
  claimHash: string;
}

const RECEIPT_COLUMNS = `caller_key, request_id, canonical_fingerprint, worker_id, state, status, envelope, owner_token_hash, owner_expires_at, pending_id`;

/** A compare-and-swap that matched nothing: the transaction is rolled back and the caller told so. */
class Fenced extends Error {}

async function fenced(work: () => Promise<void>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    if (error instanceof Fenced) return false;
    throw error;
  }
}

async function changed(executor: SqlExecutor, sql: string, parameters: unknown[]): Promise<boolean> {
  return (await queryRows(executor, sql, parameters)).length > 0;
}

/**
 * `command_receipts` and `decision_claims`. Every transition is a compare-and-swap on the owner's
 * token hash and the expected state; leases are compared with the caller's clock (`now`), never the
 * database's, so tests can move time.
 */
@Injectable()
export class CommandReceiptRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(key: ReceiptKey): Promise<ReceiptRow | undefined> {
    return queryRow<ReceiptRow>(this.dataSource, `SELECT ${RECEIPT_COLUMNS} FROM command_receipts WHERE caller_key = $1 AND request_id = $2`, [
      key.callerKey,
      key.requestId,
    ]);
  }

  /** A new reservation; false when the caller's request_id is already taken (whoever took it decides). */
  reserve(input: ReceiptKey & { fingerprint: string; canonicalJson: string; workerId: string; ownerHash: string; now: Date; expiresAt: Date }) {
    return changed(
      this.dataSource,
      `INSERT INTO command_receipts (caller_key, request_id, action, canonical_version, canonical_fingerprint, canonical_json, worker_id, state, status,
                                     owner_token_hash, owner_expires_at, created_at, reserved_at, updated_at)
       VALUES ($1, $2, 'answer_decision', 1, $3, $4, $5, 'reserved', 'pending', $6, $7, $8, $8, $8)
       ON CONFLICT (caller_key, request_id) DO NOTHING
       RETURNING request_id`,
      [input.callerKey, input.requestId, input.fingerprint, input.canonicalJson, input.workerId, input.ownerHash, input.expiresAt, input.now],
    );
  }

  /** Takes over an abandoned (lease expired) reservation of the same canonical request. */
  takeOver(input: ReceiptKey & { fingerprint: string; previousOwnerHash: string; ownerHash: string; now: Date; expiresAt: Date }) {
    return changed(
      this.dataSource,
      `UPDATE command_receipts SET owner_token_hash = $4, owner_expires_at = $6, reserved_at = $5, updated_at = $5
        WHERE caller_key = $7 AND request_id = $1 AND state = 'reserved' AND canonical_fingerprint = $2 AND owner_token_hash = $3 AND owner_expires_at <= $5
        RETURNING request_id`,
      [input.requestId, input.fingerprint, input.previousOwnerHash, input.ownerHash, input.now, input.expiresAt, input.callerKey],
    );
  }

  /** Ends the owner's lease of an unsent reservation at once, so a retry can take it over. */
  async release(owner: Pick<Ownership, 'callerKey' | 'requestId' | 'ownerHash'>, now: Date): Promise<void> {
    await queryRows(
      this.dataSource,
      `UPDATE command_receipts SET owner_expires_at = $3, updated_at = $3
        WHERE caller_key = $4 AND request_id = $1 AND state = 'reserved' AND owner_token_hash = $2 RETURNING request_id`,
      [owner.requestId, owner.ownerHash, now, owner.callerKey],
    );
  }

  /** reserved → rejected | uncertain, releasing the owner's decision claim with it. */
  finishReserved(owner: Ownership, terminal: { state: 'rejected' | 'uncertain'; status: string; envelope: string }, now: Date) {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const done = await changed(
          manager,
          `UPDATE command_receipts
              SET state = $3, status = $4, envelope = $5, owner_token_hash = NULL, owner_expires_at = NULL, terminal_at = $6, updated_at = $6
            WHERE caller_key = $7 AND request_id = $1 AND state = 'reserved' AND owner_token_hash = $2 RETURNING request_id`,
          [owner.requestId, owner.ownerHash, terminal.state, terminal.status, terminal.envelope, now, owner.callerKey],
        );
        if (!done) throw new Fenced();
        await this.releaseClaim(owner, manager);
      }),
    );
  }

  findClaim(workerId: string): Promise<ClaimRow | undefined> {
    return queryRow<ClaimRow>(
      this.dataSource,
      `SELECT worker_id, caller_key, request_id, decision_ref, state, expires_at FROM decision_claims WHERE worker_id = $1`,
      [workerId],
    );
  }

  /**
   * One claim per worker. An existing claim yields only while it is `claimed` and either expired,
   * this request's own (same caller and request_id), or for a decision that is no longer the current one; a `send_started`
   * claim never yields — it ends with its receipt.
   */
  claim(owner: Ownership, decisionRef: string, now: Date, expiresAt: Date): Promise<boolean> {
    return changed(
      this.dataSource,
      `INSERT INTO decision_claims AS c (worker_id, claim_token_hash, caller_key, request_id, decision_ref, state, claimed_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'claimed', $6, $7)
       ON CONFLICT (worker_id) DO UPDATE
         SET claim_token_hash = EXCLUDED.claim_token_hash, caller_key = EXCLUDED.caller_key, request_id = EXCLUDED.request_id,
             decision_ref = EXCLUDED.decision_ref, state = 'claimed', claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at,
             send_started_at = NULL
         WHERE c.state = 'claimed' AND (c.expires_at <= EXCLUDED.claimed_at OR (c.caller_key = EXCLUDED.caller_key AND c.request_id = EXCLUDED.request_id)
                                        OR c.decision_ref <> EXCLUDED.decision_ref)
       RETURNING worker_id`,
      [owner.workerId, owner.claimHash, owner.callerKey, owner.requestId, decisionRef, now, expiresAt],
    );
  }

  /** Drops the owner's claim unless its send has started (a started send's claim ends with its receipt). */
  async releaseClaim(owner: Pick<Ownership, 'workerId' | 'claimHash'>, executor: SqlExecutor = this.dataSource): Promise<void> {
    await queryRows(
      executor,
      `DELETE FROM decision_claims WHERE worker_id = $1 AND claim_token_hash = $2 AND state = 'claimed' RETURNING worker_id`,
      [owner.workerId, owner.claimHash],
    );
  }

  /** reserved → send_started together with the claim, or neither: the last step before ResolveBundle. */
  markSendStarted(owner: Ownership, pendingId: string, now: Date, expiresAt: Date): Promise<boolean> {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const claimStarted = await changed(
          manager,
          `UPDATE decision_claims SET state = 'send_started', send_started_at = $3, expires_at = $4
            WHERE worker_id = $1 AND claim_token_hash = $2 AND state = 'claimed' RETURNING worker_id`,
          [owner.workerId, owner.claimHash, now, expiresAt],
        );
        const receiptStarted =
          claimStarted &&
          (await changed(
            manager,
            `UPDATE command_receipts SET state = 'send_started', pending_id = $3, send_started_at = $4, owner_expires_at = $5, updated_at = $4
              WHERE caller_key = $6 AND request_id = $1 AND state = 'reserved' AND owner_token_hash = $2 RETURNING request_id`,
            [owner.requestId, owner.ownerHash, pendingId, now, expiresAt, owner.callerKey],
          ));
        if (!receiptStarted) throw new Fenced();
      }),
    );
  }

  /** The owner's heartbeat while ResolveBundle runs: a live sender is never mistaken for a dead one. */
  async renew(owner: Ownership, now: Date, expiresAt: Date): Promise<void> {
    await inTransaction(this.dataSource, async (manager) => {
      await manager.query(
        `UPDATE command_receipts SET owner_expires_at = $3, updated_at = $4
          WHERE caller_key = $5 AND request_id = $1 AND state = 'send_started' AND owner_token_hash = $2`,
        [owner.requestId, owner.ownerHash, expiresAt, now, owner.callerKey],
      );
      await manager.query(`UPDATE decision_claims SET expires_at = $3 WHERE worker_id = $1 AND claim_token_hash = $2`, [
        owner.workerId,
        owner.claimHash,
        expiresAt,
      ]);
    });
  }

  /** send_started → accepted | rejected | uncertain, ending the claim with it. */
  finishSent(owner: Ownership, terminal: { state: TerminalState; status: string; envelope: string }, now: Date): Promise<boolean> {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const done = await changed(
          manager,
          `UPDATE command_receipts
              SET state = $3, status = $4, envelope = $5, owner_token_hash = NULL, owner_expires_at = NULL, terminal_at = $6, updated_at = $6
            WHERE caller_key = $7 AND request_id = $1 AND state = 'send_started' AND owner_token_hash = $2 RETURNING request_id`,
          [owner.requestId, owner.ownerHash, terminal.state, terminal.status, terminal.envelope, now, owner.callerKey],
        );
        if (!done) throw new Fenced();
        await manager.query(`DELETE FROM decision_claims WHERE worker_id = $1 AND claim_token_hash = $2`, [owner.workerId, owner.claimHash]);
      }),
    );
  }

  /** send_started receipts whose owner is gone (lease expired) or that outlived the retry horizon. */
  async staleSends(now: Date, horizonStart: Date, limit: number): Promise<ReceiptKey[]> {
    const rows = await queryRows<{ caller_key: string; request_id: string }>(
      this.dataSource,
      `SELECT caller_key, request_id FROM command_receipts
        WHERE state = 'send_started' AND (owner_expires_at <= $1 OR send_started_at < $2)
        ORDER BY owner_expires_at LIMIT $3`,
      [now, horizonStart, limit],
    );
    return rows.map((row) => ({ callerKey: row.caller_key, requestId: row.request_id }));
  }

  /**
   * A started send whose owner is gone becomes `uncertain` — durable, never resent — and its claim
   * ends with it. Fenced on the state and the expired lease: a live owner's receipt is never touched.
   */
  expireStaleSend(key: ReceiptKey, envelope: string, now: Date, horizonStart: Date): Promise<boolean> {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const done = await changed(
          manager,
          `UPDATE command_receipts
              SET state = 'uncertain', status = 'request_state_uncertain', envelope = $2, owner_token_hash = NULL, owner_expires_at = NULL,
                  terminal_at = $3, updated_at = $3
            WHERE caller_key = $5 AND request_id = $1 AND state = 'send_started' AND (owner_expires_at <= $3 OR send_started_at < $4)
            RETURNING request_id`,
          [key.requestId, envelope, now, horizonStart, key.callerKey],
        );
        if (!done) throw new Fenced();
        await manager.query(`DELETE FROM decision_claims WHERE caller_key = $1 AND request_id = $2 AND state = 'send_started'`, [
          key.callerKey,
          key.requestId,
        ]);
      }),
    );
  }

  /** Retention: terminal receipts and abandoned reservations older than the horizon, expired unsent claims. */
  async prune(now: Date, horizonStart: Date): Promise<{ receipts: number; claims: number }> {
    const receipts = await queryRows(
      this.dataSource,
      `DELETE FROM command_receipts
        WHERE terminal_at < $2 OR (state = 'reserved' AND owner_expires_at <= $1 AND reserved_at < $2)
        RETURNING request_id`,
      [now, horizonStart],
    );
    const claims = await queryRows(
      this.dataSource,
      `DELETE FROM decision_claims WHERE state = 'claimed' AND expires_at <= $1 RETURNING worker_id`,
      [now],
    );
    return { receipts: receipts.length, claims: claims.length };
  }
}
