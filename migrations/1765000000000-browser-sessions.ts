import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Browser sessions: the `parley_session` cookie holds an opaque random id whose SHA-256 is stored
 * here (never a token). A session ends at sign-out, at its idle or absolute expiry, when the token
 * that opened it is revoked (or deleted), and when its user is deleted.
 */
export class BrowserSessions1765000000000 implements MigrationInterface {
  name = 'BrowserSessions1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE browser_sessions (
        id text PRIMARY KEY,
        session_sha256 text NOT NULL UNIQUE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_id text NOT NULL REFERENCES access_tokens (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_seen_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        idle_expires_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX browser_sessions_user_id_idx ON browser_sessions (user_id)`);
    await queryRunner.query(`CREATE INDEX browser_sessions_token_id_idx ON browser_sessions (token_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE browser_sessions`);
  }
}
