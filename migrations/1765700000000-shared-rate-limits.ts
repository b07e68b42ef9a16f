import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate limits counted in PostgreSQL, so every replica spends the same budgets and a restart keeps
 * them (docs/configuration.md, "Rate limits"). The columns are the ones rate-limiter-flexible's
 * PostgreSQL store reads and writes (`key` is `<kind>:<whose budget>`, `expire` the window's end in
 * epoch milliseconds); the index serves its periodic deletion of long-expired rows.
 */
export class SharedRateLimits1765700000000 implements MigrationInterface {
  name = 'SharedRateLimits1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
    await queryRunner.query(`CREATE INDEX rate_limits_expire_idx ON rate_limits (expire)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE rate_limits`);
  }
}
