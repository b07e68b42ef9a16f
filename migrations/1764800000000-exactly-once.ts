import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CLARIFICATION_REQUEST, upsertBundleIndexSql } from '../libs/tasks/src/activeness.sql.js';

/**
 * Exactly-once under faults and replicas, and a pending list whose cost is the page:
 * - `clarification_bundles`: one row per bundle (D1 created_at, M5 task, visibility key, active),
 *   kept in step with the activeness rule by every transaction that changes it;
 * - `parley_processes`: the lease each server process holds while it lives, so a claim's delivery
 *   is only taken over once its owner's lease expired;
 * - question events get a position that follows commit order (see QuestionEventRepository);
 * - `clarification_waiters` records the processes holding the agent's live wait of a bundle, and
 *   `clarification_handoffs` the response a winner hands to such a process.
 */
export class ExactlyOnce1764800000000 implements MigrationInterface {
  name = 'ExactlyOnce1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE clarification_bundles (
        pending_id text PRIMARY KEY,
        session_id text NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
        task_id text NOT NULL DEFAULT '',
        visibility_key text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL,
        active boolean NOT NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX clarification_bundles_active_idx ON clarification_bundles (created_at, pending_id) WHERE active AND task_id <> ''`,
    );
    await queryRunner.query(
      `CREATE INDEX clarification_bundles_visible_idx ON clarification_bundles (visibility_key, created_at, pending_id) WHERE active AND task_id <> ''`,
    );
    await queryRunner.query(`CREATE INDEX clarification_bundles_session_idx ON clarification_bundles (session_id) WHERE active`);
    await queryRunner.query(
      upsertBundleIndexSql(
        `SELECT DISTINCT metadata->>'pending_id' FROM task_session_messages WHERE type = '${CLARIFICATION_REQUEST}' AND metadata ? 'pending_id'`,
      ),
    );

    await queryRunner.query(`
      CREATE TABLE parley_processes (
        id text PRIMARY KEY,
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        heartbeat_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL
      )`);

    await queryRunner.query(`ALTER TABLE question_events ALTER COLUMN id DROP DEFAULT`);
    await queryRunner.query(`DROP SEQUENCE IF EXISTS question_events_id_seq`);

    await queryRunner.query(`DELETE FROM clarification_waiters`);
    await queryRunner.query(`ALTER TABLE clarification_waiters RENAME COLUMN replica_id TO process_id`);
    await queryRunner.query(`ALTER TABLE clarification_waiters DROP COLUMN seen_at`);
    await queryRunner.query(`DROP TABLE clarification_handoffs`);
    await queryRunner.query(`
      CREATE TABLE clarification_handoffs (
        pending_id text PRIMARY KEY,
        process_id text NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);

    await queryRunner.query(
      `CREATE INDEX task_session_messages_delivery_pending_idx ON task_session_messages ((metadata->>'pending_id'))
        WHERE metadata->>'response_delivery_pending' = 'true'`,
    );
    await queryRunner.query(
      `CREATE INDEX task_session_turns_resume_of_idx ON task_session_turns ((metadata->>'resume_of')) WHERE metadata ? 'resume_of'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX task_session_turns_resume_of_idx`);
    await queryRunner.query(`DROP INDEX task_session_messages_delivery_pending_idx`);
    await queryRunner.query(`DROP TABLE clarification_handoffs`);
    await queryRunner.query(`
      CREATE TABLE clarification_handoffs (
        id text PRIMARY KEY,
        pending_id text NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`ALTER TABLE clarification_waiters ADD COLUMN seen_at timestamptz NOT NULL DEFAULT clock_timestamp()`);
    await queryRunner.query(`ALTER TABLE clarification_waiters RENAME COLUMN process_id TO replica_id`);
    await queryRunner.query(`CREATE SEQUENCE question_events_id_seq OWNED BY question_events.id`);
    await queryRunner.query(`SELECT setval('question_events_id_seq', GREATEST((SELECT MAX(id) FROM question_events), 1))`);
    await queryRunner.query(`ALTER TABLE question_events ALTER COLUMN id SET DEFAULT nextval('question_events_id_seq')`);
    await queryRunner.query(`DROP TABLE parley_processes`);
    await queryRunner.query(`DROP TABLE clarification_bundles`);
  }
}
