import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The connector command contract (docs/api/commands.md): one receipt per request_id, fenced by an owner lease,
 * and one decision claim per worker (agent session).
 */
export class CommandReceipts1765100000000 implements MigrationInterface {
  name = 'CommandReceipts1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE command_receipts (
        request_id text PRIMARY KEY,
        action text NOT NULL,
        canonical_version integer NOT NULL,
        canonical_fingerprint text NOT NULL,
        canonical_json text NOT NULL,
        worker_id text NOT NULL,
        state text NOT NULL CHECK (state IN ('reserved', 'send_started', 'accepted', 'rejected', 'uncertain')),
        status text NOT NULL,
        envelope text,
        owner_token_hash text,
        owner_expires_at timestamptz,
        pending_id text,
        created_at timestamptz NOT NULL,
        reserved_at timestamptz NOT NULL,
        send_started_at timestamptz,
        terminal_at timestamptz,
        updated_at timestamptz NOT NULL,
        CHECK ((state IN ('accepted', 'rejected', 'uncertain')) = (envelope IS NOT NULL AND terminal_at IS NOT NULL)),
        CHECK ((state IN ('reserved', 'send_started')) = (owner_token_hash IS NOT NULL AND owner_expires_at IS NOT NULL))
      )`);
    await queryRunner.query(
      `CREATE INDEX command_receipts_active_idx ON command_receipts (owner_expires_at) WHERE state IN ('reserved', 'send_started')`,
    );
    await queryRunner.query(`CREATE INDEX command_receipts_terminal_idx ON command_receipts (terminal_at) WHERE terminal_at IS NOT NULL`);
    await queryRunner.query(`
      CREATE TABLE decision_claims (
        worker_id text PRIMARY KEY REFERENCES task_sessions (id) ON DELETE CASCADE,
        claim_token_hash text NOT NULL,
        request_id text NOT NULL,
        decision_ref text NOT NULL,
        state text NOT NULL CHECK (state IN ('claimed', 'send_started')),
        claimed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        send_started_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX decision_claims_request_idx ON decision_claims (request_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE decision_claims`);
    await queryRunner.query(`DROP TABLE command_receipts`);
  }
}
