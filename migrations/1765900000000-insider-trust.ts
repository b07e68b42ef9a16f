import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who opened a session (`opened_by`: `user:<id>`, `admin` or `synthetic`; '' for a session created
 * before it was recorded, which only its agent and admins may act in), and the receipts an executor
 * has spent: one row per `jti`, so a receipt is redeemed at most once whichever replica is asked.
 */
export class InsiderTrust1765900000000 implements MigrationInterface {
  name = 'InsiderTrust1765900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE task_sessions ADD COLUMN opened_by text NOT NULL DEFAULT ''`);
    await queryRunner.query(`CREATE TABLE receipt_redemptions (
      jti text PRIMARY KEY,
      pending_id text NOT NULL,
      redeemed_by text NOT NULL,
      redeemed_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE receipt_redemptions`);
    await queryRunner.query(`ALTER TABLE task_sessions DROP COLUMN opened_by`);
  }
}
