import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1764489600000 implements MigrationInterface {
  name = 'InitialSchema1764489600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`
      CREATE TABLE access_tokens (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL DEFAULT '',
        token_sha256 text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX access_tokens_user_id_idx ON access_tokens (user_id)`);
    await queryRunner.query(`
      CREATE TABLE workspaces (
        id text PRIMARY KEY,
        name text NOT NULL,
        owner_id text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX workspaces_owner_id_idx ON workspaces (owner_id)`);
    await queryRunner.query(`
      CREATE TABLE tasks (
        id text PRIMARY KEY,
        workspace_id text NOT NULL DEFAULT '',
        title text NOT NULL,
        state text NOT NULL,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX tasks_workspace_id_idx ON tasks (workspace_id, created_at, id)`);
    await queryRunner.query(`
      CREATE TABLE task_sessions (
        id text PRIMARY KEY,
        task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        state text NOT NULL,
        agent_token_sha256 text NOT NULL UNIQUE,
        resume_url text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX task_sessions_task_id_idx ON task_sessions (task_id, created_at, id)`);
    await queryRunner.query(`
      CREATE TABLE task_session_turns (
        id text PRIMARY KEY,
        task_session_id text NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
        task_id text NOT NULL DEFAULT '',
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        completed_at timestamptz,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(
      `CREATE INDEX task_session_turns_current_idx ON task_session_turns (task_session_id, started_at DESC, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`
      CREATE TABLE task_session_messages (
        id text PRIMARY KEY,
        task_session_id text NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
        task_id text NOT NULL DEFAULT '',
        turn_id text REFERENCES task_session_turns (id) ON DELETE CASCADE,
        author_type text NOT NULL,
        type text NOT NULL,
        content text NOT NULL DEFAULT '',
        requests_input boolean NOT NULL DEFAULT false,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(
      `CREATE INDEX task_session_messages_session_idx ON task_session_messages (task_session_id, created_at, id)`,
    );
    await queryRunner.query(`CREATE INDEX task_session_messages_turn_idx ON task_session_messages (turn_id)`);
    await queryRunner.query(
      `CREATE INDEX task_session_messages_pending_id_idx ON task_session_messages ((metadata->>'pending_id'))`,
    );
    await queryRunner.query(`
      CREATE INDEX task_session_messages_pending_clarification_idx
        ON task_session_messages (created_at, (metadata->>'pending_id'))
        WHERE type = 'clarification_request' AND COALESCE(metadata->>'status', '') IN ('', 'pending')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['task_session_messages', 'task_session_turns', 'task_sessions', 'tasks', 'workspaces', 'access_tokens', 'users']) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
