import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, namedStatement, type NamedStatement, type SqlExecutor } from '#persistence';

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

const COMMAND_RECEIPT_FIND = namedStatement(
  'command_receipt_find',
  ['caller_key', 'request_id'],
  `SELECT ${RECEIPT_COLUMNS} FROM command_receipts WHERE caller_key = :caller_key AND request_id = :request_id`,
);

const COMMAND_RECEIPT_RESERVE = namedStatement(
  'command_receipt_reserve',
  ['caller_key', 'request_id', 'fingerprint', 'canonical_json', 'worker_id', 'owner_hash', 'expires_at', 'now'],
  `INSERT INTO command_receipts (caller_key, request_id, action, canonical_version, canonical_fingerprint, canonical_json, worker_id, state, status,
                                     owner_token_hash, owner_expires_at, created_at, reserved_at, updated_at)
       VALUES (:caller_key, :request_id, 'answer_decision', 1, :fingerprint, :canonical_json, :worker_id, 'reserved', 'pending', :owner_hash, :expires_at, :now, :now, :now)
       ON CONFLICT (caller_key, request_id) DO NOTHING
       RETURNING request_id`,
);

const COMMAND_RECEIPT_TAKE_OVER = namedStatement(
  'command_receipt_take_over',
  ['request_id', 'fingerprint', 'previous_owner_hash', 'owner_hash', 'now', 'expires_at', 'caller_key'],
  `UPDATE command_receipts SET owner_token_hash = :owner_hash, owner_expires_at = :expires_at, reserved_at = :now, updated_at = :now
        WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'reserved' AND canonical_fingerprint = :fingerprint AND owner_token_hash = :previous_owner_hash AND owner_expires_at <= :now
        RETURNING request_id`,
);

const COMMAND_RECEIPT_RELEASE = namedStatement(
  'command_receipt_release',
  ['request_id', 'owner_hash', 'now', 'caller_key'],
  `UPDATE command_receipts SET owner_expires_at = :now, updated_at = :now
        WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'reserved' AND owner_token_hash = :owner_hash RETURNING request_id`,
);

const COMMAND_RECEIPT_FINISH_RESERVED = namedStatement(
  'command_receipt_finish_reserved',
  ['request_id', 'owner_hash', 'state', 'status', 'envelope', 'now', 'caller_key'],
  `UPDATE command_receipts
              SET state = :state, status = :status, envelope = :envelope, owner_token_hash = NULL, owner_expires_at = NULL, terminal_at = :now, updated_at = :now
            WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'reserved' AND owner_token_hash = :owner_hash RETURNING request_id`,
);

const COMMAND_RECEIPT_FIND_CLAIM = namedStatement(
  'command_receipt_find_claim',
  ['worker_id'],
  `SELECT worker_id, caller_key, request_id, decision_ref, state, expires_at FROM decision_claims WHERE worker_id = :worker_id`,
);

const COMMAND_RECEIPT_CLAIM = namedStatement(
  'command_receipt_claim',
  ['worker_id', 'claim_hash', 'caller_key', 'request_id', 'decision_ref', 'now', 'expires_at'],
  `INSERT INTO decision_claims AS c (worker_id, claim_token_hash, caller_key, request_id, decision_ref, state, claimed_at, expires_at)
       VALUES (:worker_id, :claim_hash, :caller_key, :request_id, :decision_ref, 'claimed', :now, :expires_at)
       ON CONFLICT (worker_id) DO UPDATE
         SET claim_token_hash = EXCLUDED.claim_token_hash, caller_key = EXCLUDED.caller_key, request_id = EXCLUDED.request_id,
             decision_ref = EXCLUDED.decision_ref, state = 'claimed', claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at,
             send_started_at = NULL
         WHERE c.state = 'claimed' AND (c.expires_at <= EXCLUDED.claimed_at OR (c.caller_key = EXCLUDED.caller_key AND c.request_id = EXCLUDED.request_id)
                                        OR c.decision_ref <> EXCLUDED.decision_ref)
       RETURNING worker_id`,
);

const COMMAND_RECEIPT_RELEASE_CLAIM = namedStatement(
  'command_receipt_release_claim',
  ['worker_id', 'claim_hash'],
  `DELETE FROM decision_claims WHERE worker_id = :worker_id AND claim_token_hash = :claim_hash AND state = 'claimed' RETURNING worker_id`,
);

const DECISION_CLAIM_MARK_SEND_STARTED = namedStatement(
  'decision_claim_mark_send_started',
  ['worker_id', 'claim_hash', 'now', 'expires_at'],
  `UPDATE decision_claims SET state = 'send_started', send_started_at = :now, expires_at = :expires_at
            WHERE worker_id = :worker_id AND claim_token_hash = :claim_hash AND state = 'claimed' RETURNING worker_id`,
);

const COMMAND_RECEIPT_MARK_SEND_STARTED = namedStatement(
  'command_receipt_mark_send_started',
  ['request_id', 'owner_hash', 'pending_id', 'now', 'expires_at', 'caller_key'],
  `UPDATE command_receipts SET state = 'send_started', pending_id = :pending_id, send_started_at = :now, owner_expires_at = :expires_at, updated_at = :now
              WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'reserved' AND owner_token_hash = :owner_hash RETURNING request_id`,
);

const COMMAND_RECEIPT_RENEW = namedStatement(
  'command_receipt_renew',
  ['request_id', 'owner_hash', 'expires_at', 'now', 'caller_key'],
  `UPDATE command_receipts SET owner_expires_at = :expires_at, updated_at = :now
          WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'send_started' AND owner_token_hash = :owner_hash`,
);

const DECISION_CLAIM_RENEW = namedStatement(
  'decision_claim_renew',
  ['worker_id', 'claim_hash', 'expires_at'],
  `UPDATE decision_claims SET expires_at = :expires_at WHERE worker_id = :worker_id AND claim_token_hash = :claim_hash`,
);

const COMMAND_RECEIPT_FINISH_SENT = namedStatement(
  'command_receipt_finish_sent',
  ['request_id', 'owner_hash', 'state', 'status', 'envelope', 'now', 'caller_key'],
  `UPDATE command_receipts
              SET state = :state, status = :status, envelope = :envelope, owner_token_hash = NULL, owner_expires_at = NULL, terminal_at = :now, updated_at = :now
            WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'send_started' AND owner_token_hash = :owner_hash RETURNING request_id`,
);

const DECISION_CLAIM_RELEASE_SENT = namedStatement(
  'decision_claim_release_sent',
  ['worker_id', 'claim_hash'],
  `DELETE FROM decision_claims WHERE worker_id = :worker_id AND claim_token_hash = :claim_hash`,
);

const COMMAND_RECEIPT_STALE_SENDS = namedStatement(
  'command_receipt_stale_sends',
  ['now', 'horizon_start', 'limit'],
  `SELECT caller_key, request_id FROM command_receipts
        WHERE state = 'send_started' AND (owner_expires_at <= :now OR send_started_at < :horizon_start)
        ORDER BY owner_expires_at LIMIT :limit`,
);

const COMMAND_RECEIPT_EXPIRE_STALE_SEND = namedStatement(
  'command_receipt_expire_stale_send',
  ['request_id', 'envelope', 'now', 'horizon_start', 'caller_key'],
  `UPDATE command_receipts
              SET state = 'uncertain', status = 'request_state_uncertain', envelope = :envelope, owner_token_hash = NULL, owner_expires_at = NULL,
                  terminal_at = :now, updated_at = :now
            WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'send_started' AND (owner_expires_at <= :now OR send_started_at < :horizon_start)
            RETURNING request_id`,
);

const DECISION_CLAIM_DROP_STALE_SEND = namedStatement(
  'decision_claim_drop_stale_send',
  ['caller_key', 'request_id'],
  `DELETE FROM decision_claims WHERE caller_key = :caller_key AND request_id = :request_id AND state = 'send_started'`,
);

const COMMAND_RECEIPT_PRUNE = namedStatement(
  'command_receipt_prune',
  ['now', 'horizon_start'],
  `DELETE FROM command_receipts
        WHERE terminal_at < :horizon_start OR (state = 'reserved' AND owner_expires_at <= :now AND reserved_at < :horizon_start)
        RETURNING request_id`,
);

const DECISION_CLAIM_PRUNE = namedStatement(
  'decision_claim_prune',
  ['now'],
  `DELETE FROM decision_claims WHERE state = 'claimed' AND expires_at <= :now RETURNING worker_id`,
);

/** The statements Fenced runs, for `npm run sql:write`. */
export const commandReceiptStatements: readonly NamedStatement[] = [
  COMMAND_RECEIPT_FIND,
  COMMAND_RECEIPT_RESERVE,
  COMMAND_RECEIPT_TAKE_OVER,
  COMMAND_RECEIPT_RELEASE,
  COMMAND_RECEIPT_FINISH_RESERVED,
  COMMAND_RECEIPT_FIND_CLAIM,
  COMMAND_RECEIPT_CLAIM,
  COMMAND_RECEIPT_RELEASE_CLAIM,
  DECISION_CLAIM_MARK_SEND_STARTED,
  COMMAND_RECEIPT_MARK_SEND_STARTED,
  COMMAND_RECEIPT_RENEW,
  DECISION_CLAIM_RENEW,
  COMMAND_RECEIPT_FINISH_SENT,
  DECISION_CLAIM_RELEASE_SENT,
  COMMAND_RECEIPT_STALE_SENDS,
  COMMAND_RECEIPT_EXPIRE_STALE_SEND,
  DECISION_CLAIM_DROP_STALE_SEND,
  COMMAND_RECEIPT_PRUNE,
  DECISION_CLAIM_PRUNE,
];

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

async function changed<P extends string>(executor: SqlExecutor, statement: NamedStatement<P>, values: Readonly<Record<P, unknown>>): Promise<boolean> {
  return (await statement.rows(executor, values)).length > 0;
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
    return COMMAND_RECEIPT_FIND.row<ReceiptRow>(this.dataSource, { caller_key: key.callerKey, request_id: key.requestId });
  }

  /** A new reservation; false when the caller's request_id is already taken (whoever took it decides). */
  reserve(input: ReceiptKey & { fingerprint: string; canonicalJson: string; workerId: string; ownerHash: string; now: Date; expiresAt: Date }) {
    return changed(this.dataSource, COMMAND_RECEIPT_RESERVE, {
      caller_key: input.callerKey,
      request_id: input.requestId,
      fingerprint: input.fingerprint,
      canonical_json: input.canonicalJson,
      worker_id: input.workerId,
      owner_hash: input.ownerHash,
      expires_at: input.expiresAt,
      now: input.now,
    });
  }

  /** Takes over an abandoned (lease expired) reservation of the same canonical request. */
  takeOver(input: ReceiptKey & { fingerprint: string; previousOwnerHash: string; ownerHash: string; now: Date; expiresAt: Date }) {
    return changed(this.dataSource, COMMAND_RECEIPT_TAKE_OVER, {
      request_id: input.requestId,
      fingerprint: input.fingerprint,
      previous_owner_hash: input.previousOwnerHash,
      owner_hash: input.ownerHash,
      now: input.now,
      expires_at: input.expiresAt,
      caller_key: input.callerKey,
    });
  }

  /** Ends the owner's lease of an unsent reservation at once, so a retry can take it over. */
  async release(owner: Pick<Ownership, 'callerKey' | 'requestId' | 'ownerHash'>, now: Date): Promise<void> {
    await COMMAND_RECEIPT_RELEASE.rows(this.dataSource, {
      request_id: owner.requestId,
      owner_hash: owner.ownerHash,
      now,
      caller_key: owner.callerKey,
    });
  }

  /** reserved → rejected | uncertain, releasing the owner's decision claim with it. */
  finishReserved(owner: Ownership, terminal: { state: 'rejected' | 'uncertain'; status: string; envelope: string }, now: Date) {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const done = await changed(manager, COMMAND_RECEIPT_FINISH_RESERVED, {
          request_id: owner.requestId,
          owner_hash: owner.ownerHash,
          state: terminal.state,
          status: terminal.status,
          envelope: terminal.envelope,
          now,
          caller_key: owner.callerKey,
        });
        if (!done) throw new Fenced();
        await this.releaseClaim(owner, manager);
      }),
    );
  }

  findClaim(workerId: string): Promise<ClaimRow | undefined> {
    return COMMAND_RECEIPT_FIND_CLAIM.row<ClaimRow>(this.dataSource, { worker_id: workerId });
  }

  /**
   * One claim per worker. An existing claim yields only while it is `claimed` and either expired,
   * this request's own (same caller and request_id), or for a decision that is no longer the current one; a `send_started`
   * claim never yields — it ends with its receipt.
   */
  claim(owner: Ownership, decisionRef: string, now: Date, expiresAt: Date): Promise<boolean> {
    return changed(this.dataSource, COMMAND_RECEIPT_CLAIM, {
      worker_id: owner.workerId,
      claim_hash: owner.claimHash,
      caller_key: owner.callerKey,
      request_id: owner.requestId,
      decision_ref: decisionRef,
      now,
      expires_at: expiresAt,
    });
  }

  /** Drops the owner's claim unless its send has started (a started send's claim ends with its receipt). */
  async releaseClaim(owner: Pick<Ownership, 'workerId' | 'claimHash'>, executor: SqlExecutor = this.dataSource): Promise<void> {
    await COMMAND_RECEIPT_RELEASE_CLAIM.rows(executor, { worker_id: owner.workerId, claim_hash: owner.claimHash });
  }

  /** reserved → send_started together with the claim, or neither: the last step before ResolveBundle. */
  markSendStarted(owner: Ownership, pendingId: string, now: Date, expiresAt: Date): Promise<boolean> {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const claimStarted = await changed(manager, DECISION_CLAIM_MARK_SEND_STARTED, {
          worker_id: owner.workerId,
          claim_hash: owner.claimHash,
          now,
          expires_at: expiresAt,
        });
        const receiptStarted =
          claimStarted &&
          (await changed(manager, COMMAND_RECEIPT_MARK_SEND_STARTED, {
            request_id: owner.requestId,
            owner_hash: owner.ownerHash,
            pending_id: pendingId,
            now,
            expires_at: expiresAt,
            caller_key: owner.callerKey,
          }));
        if (!receiptStarted) throw new Fenced();
      }),
    );
  }

  /** The owner's heartbeat while ResolveBundle runs: a live sender is never mistaken for a dead one. */
  async renew(owner: Ownership, now: Date, expiresAt: Date): Promise<void> {
    await inTransaction(this.dataSource, async (manager) => {
      await COMMAND_RECEIPT_RENEW.rows(manager, {
        request_id: owner.requestId,
        owner_hash: owner.ownerHash,
        expires_at: expiresAt,
        now,
        caller_key: owner.callerKey,
      });
      await DECISION_CLAIM_RENEW.rows(manager, { worker_id: owner.workerId, claim_hash: owner.claimHash, expires_at: expiresAt });
    });
  }

  /** send_started → accepted | rejected | uncertain, ending the claim with it. */
  finishSent(owner: Ownership, terminal: { state: TerminalState; status: string; envelope: string }, now: Date): Promise<boolean> {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const done = await changed(manager, COMMAND_RECEIPT_FINISH_SENT, {
          request_id: owner.requestId,
          owner_hash: owner.ownerHash,
          state: terminal.state,
          status: terminal.status,
          envelope: terminal.envelope,
          now,
          caller_key: owner.callerKey,
        });
        if (!done) throw new Fenced();
        await DECISION_CLAIM_RELEASE_SENT.rows(manager, { worker_id: owner.workerId, claim_hash: owner.claimHash });
      }),
    );
  }

  /** send_started receipts whose owner is gone (lease expired) or that outlived the retry horizon. */
  async staleSends(now: Date, horizonStart: Date, limit: number): Promise<ReceiptKey[]> {
    const rows = await COMMAND_RECEIPT_STALE_SENDS.rows<{ caller_key: string; request_id: string }>(this.dataSource, {
      now,
      horizon_start: horizonStart,
      limit,
    });
    return rows.map((row) => ({ callerKey: row.caller_key, requestId: row.request_id }));
  }

  /**
   * A started send whose owner is gone becomes `uncertain` — durable, never resent — and its claim
   * ends with it. Fenced on the state and the expired lease: a live owner's receipt is never touched.
   */
  expireStaleSend(key: ReceiptKey, envelope: string, now: Date, horizonStart: Date): Promise<boolean> {
    return fenced(() =>
      inTransaction(this.dataSource, async (manager) => {
        const done = await changed(manager, COMMAND_RECEIPT_EXPIRE_STALE_SEND, {
          request_id: key.requestId,
          envelope,
          now,
          horizon_start: horizonStart,
          caller_key: key.callerKey,
        });
        if (!done) throw new Fenced();
        await DECISION_CLAIM_DROP_STALE_SEND.rows(manager, { caller_key: key.callerKey, request_id: key.requestId });
      }),
    );
  }

  /** Retention: terminal receipts and abandoned reservations older than the horizon, expired unsent claims. */
  async prune(now: Date, horizonStart: Date): Promise<{ receipts: number; claims: number }> {
    const receipts = await COMMAND_RECEIPT_PRUNE.rows(this.dataSource, { now, horizon_start: horizonStart });
    const claims = await DECISION_CLAIM_PRUNE.rows(this.dataSource, { now });
    return { receipts: receipts.length, claims: claims.length };
  }
}
