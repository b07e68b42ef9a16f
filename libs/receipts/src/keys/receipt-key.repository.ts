import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, namedStatement, type NamedStatement, type ReadExecutor } from '#persistence';
import type { NewReceiptKey, PublishedReceiptKey } from './receipt-key.types.js';

/** The advisory lock every rotation takes, so two rotations at once retire and add in turn. */
const ROTATION_LOCK = `pg_advisory_xact_lock(hashtextextended('parley.receipt_keys', 0))`;
const KEY_COLUMNS = 'kid, public_jwk, private_jwk, created_at, retired_at, publish_until';
/** The channel a rotation is announced on, so every process re-reads the key set at once. */
export const RECEIPT_KEYS_CHANNEL = 'parley_receipt_keys';

const RECEIPT_KEY_PUBLISHED = namedStatement(
  'receipt_key_published',
  [],
  `SELECT ${KEY_COLUMNS}, (EXTRACT(EPOCH FROM publish_until - clock_timestamp()) * 1000)::float8 AS published_for_ms FROM receipt_keys
        WHERE retired_at IS NULL OR publish_until > clock_timestamp()
        ORDER BY created_at DESC, kid DESC`,
);

const RECEIPT_KEY_ADD_FIRST = namedStatement(
  'receipt_key_add_first',
  ['kid', 'public_jwk', 'private_jwk'],
  `INSERT INTO receipt_keys (kid, public_jwk, private_jwk) VALUES (:kid, :public_jwk::jsonb, :private_jwk::jsonb)
       ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING`,
);

const RECEIPT_KEY_ROTATION_LOCK = namedStatement('receipt_key_rotation_lock', [], `SELECT ${ROTATION_LOCK}`);

const RECEIPT_KEY_RETIRE = namedStatement(
  'receipt_key_retire',
  ['publish_seconds'],
  `UPDATE receipt_keys SET retired_at = clock_timestamp(), publish_until = clock_timestamp() + make_interval(secs => :publish_seconds)
          WHERE retired_at IS NULL RETURNING kid`,
);

const RECEIPT_KEY_INSERT = namedStatement(
  'receipt_key_insert',
  ['kid', 'public_jwk', 'private_jwk'],
  `INSERT INTO receipt_keys (kid, public_jwk, private_jwk) VALUES (:kid, :public_jwk::jsonb, :private_jwk::jsonb)`,
);

const RECEIPT_KEY_NOTIFY = namedStatement(
  'receipt_key_notify',
  ['kid'],
  `SELECT pg_notify('${RECEIPT_KEYS_CHANNEL}', :kid::text)`,
);

/** The statements ReceiptKeyRepository runs, for `npm run sql:write`. */
export const receiptKeyStatements: readonly NamedStatement[] = [
  RECEIPT_KEY_PUBLISHED,
  RECEIPT_KEY_ADD_FIRST,
  RECEIPT_KEY_ROTATION_LOCK,
  RECEIPT_KEY_RETIRE,
  RECEIPT_KEY_INSERT,
  RECEIPT_KEY_NOTIFY,
];

/** The receipt signing keys, kept in PostgreSQL so every replica signs and verifies with one set. */
@Injectable()
export class ReceiptKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The keys still published: the signing key, and retired keys until the receipts they signed expire,
   * each with how long it stays published by the database's clock. Newest first.
   */
  published(executor: ReadExecutor = this.dataSource): Promise<PublishedReceiptKey[]> {
    return RECEIPT_KEY_PUBLISHED.rows<PublishedReceiptKey>(executor, {});
  }

  /**
   * Adds `key` as the first signing key unless one exists already. At most one key is unretired
   * (a partial unique index), so of two replicas starting at once one inserts and the other's insert
   * does nothing; both then read the one signing key.
   */
  async addFirst(key: NewReceiptKey): Promise<void> {
    await RECEIPT_KEY_ADD_FIRST.rows(this.dataSource, {
      kid: key.kid,
      public_jwk: JSON.stringify(key.publicJwk),
      private_jwk: JSON.stringify(key.privateJwk),
    });
  }

  /**
   * Retires the signing key (published `publishSeconds` more, the lifetime of the last receipt it
   * may sign) and adds `key` as the new one, in one transaction under the rotation lock, announced
   * on RECEIPT_KEYS_CHANNEL when it commits.
   */
  rotate(key: NewReceiptKey, publishSeconds: number): Promise<string | undefined> {
    return inTransaction(this.dataSource, async (manager) => {
      await RECEIPT_KEY_ROTATION_LOCK.rows(manager, {});
      const retired = await RECEIPT_KEY_RETIRE.rows<{ kid: string }>(manager, { publish_seconds: publishSeconds });
      await RECEIPT_KEY_INSERT.rows(manager, {
        kid: key.kid,
        public_jwk: JSON.stringify(key.publicJwk),
        private_jwk: JSON.stringify(key.privateJwk),
      });
      await RECEIPT_KEY_NOTIFY.rows(manager, { kid: key.kid });
      return retired[0]?.kid;
    });
  }
}
