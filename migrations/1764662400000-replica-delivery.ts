import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cross-replica delivery: which replica holds live waiters of which bundle, and the responses a
 * winning replica hands to the replica holding the waiter (LISTEN/NOTIFY carries only their ids).
 */
export class ReplicaDelivery1764662400000 implements MigrationInterface {
  name = 'ReplicaDelivery1764662400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE clarification_waiters (
        pending_id text NOT NULL,
        replica_id text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (pending_id, replica_id)
      )`);
    await queryRunner.query(`CREATE INDEX clarification_waiters_replica_idx ON clarification_waiters (replica_id)`);
    await queryRunner.query(`
      CREATE TABLE clarification_handoffs (
        id text PRIMARY KEY,
        pending_id text NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE clarification_handoffs`);
    await queryRunner.query(`DROP TABLE clarification_waiters`);
  }
}
