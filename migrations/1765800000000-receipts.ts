import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Ed25519 key pairs that sign resolution receipts (docs/receipts.md). One row per key: the
 * newest unretired key signs; a retired key stays published until every receipt it signed has
 * expired (`publish_until`). The private key is kept here so every replica signs with the same set;
 * only the public part is ever served. At most one key is unretired (the partial unique index), so
 * two replicas that start at once and both insert a first key end with one: the second insert is
 * a conflict that does nothing.
 */
export class Receipts1765800000000 implements MigrationInterface {
  name = 'Receipts1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE receipt_keys (
      kid text PRIMARY KEY,
      public_jwk jsonb NOT NULL,
      private_jwk jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      retired_at timestamptz,
      publish_until timestamptz
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX receipt_keys_one_signing_idx ON receipt_keys ((true)) WHERE retired_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE receipt_keys`);
  }
}
