import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, queryRows, type ReadExecutor } from '#persistence';
import type { NewReceiptKey, PublishedReceiptKey } from './receipt-key.types.js';

/** The advisory lock every rotation takes, so two rotations at once retire and add in turn. */
const ROTATION_LOCK = `pg_advisory_xact_lock(hashtextextended('parley.receipt_keys', 0))`;
const KEY_COLUMNS = 'kid, public_jwk, private_jwk, created_at, retired_at, publish_until';
/** The channel a rotation is announced on, so every process re-reads the key set at once. */
export const RECEIPT_KEYS_CHANNEL = 'parley_receipt_keys';

/** The receipt signing keys, kept in PostgreSQL so every replica signs and verifies with one set. */
@Injectable()
export class ReceiptKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The keys still published: the signing key, and retired keys until the receipts they signed expire,
   * each with how long it stays published by the database's clock. Newest first.
   */
  published(executor: ReadExecutor = this.dataSource): Promise<PublishedReceiptKey[]> {
    return queryRows<PublishedReceiptKey>(
      executor,
      `SELECT ${KEY_COLUMNS}, (EXTRACT(EPOCH FROM publish_until - clock_timestamp()) * 1000)::float8 AS published_for_ms FROM receipt_keys
        WHERE retired_at IS NULL OR publish_until > clock_timestamp()
        ORDER BY created_at DESC, kid DESC`,
    );
  }

  /**
   * Adds `key` as the first signing key unless one exists already. At most one key is unretired
   * (a partial unique index), so of two replicas starting at once one inserts and the other's insert
   * does nothing; both then read the one signing key.
   */
  async addFirst(key: NewReceiptKey): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO receipt_keys (kid, public_jwk, private_jwk) VALUES ($1, $2::jsonb, $3::jsonb)
       ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING`,
      [key.kid, JSON.stringify(key.publicJwk), JSON.stringify(key.privateJwk)],
    );
  }

  /**
   * Retires the signing key (published `publishSeconds` more, the lifetime of the last receipt it
   * may sign) and adds `key` as the new one, in one transaction under the rotation lock, announced
   * on RECEIPT_KEYS_CHANNEL when it commits.
   */
  rotate(key: NewReceiptKey, publishSeconds: number): Promise<string | undefined> {
    return inTransaction(this.dataSource, async (manager) => {
      await manager.query(`SELECT ${ROTATION_LOCK}`);
      const retired = await queryRows<{ kid: string }>(
        manager,
        `UPDATE receipt_keys SET retired_at = clock_timestamp(), publish_until = clock_timestamp() + make_interval(secs => $1)
          WHERE retired_at IS NULL RETURNING kid`,
        [publishSeconds],
      );
      await manager.query(`INSERT INTO receipt_keys (kid, public_jwk, private_jwk) VALUES ($1, $2::jsonb, $3::jsonb)`, [
        key.kid,
        JSON.stringify(key.publicJwk),
        JSON.stringify(key.privateJwk),
      ]);
      await manager.query(`SELECT pg_notify('${RECEIPT_KEYS_CHANNEL}', $1::text)`, [key.kid]);
      return retired[0]?.kid;
    });
  }
}
