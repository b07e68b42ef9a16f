import type { MigrationInterface, QueryRunner } from 'typeorm';

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
    // The bundle index of every bundle already stored, by the activeness rule as it stood when this
    // migration was written: frozen here, so a later change of the rule cannot change what it did.
    await queryRunner.query(`INSERT INTO clarification_bundles (pending_id, session_id, task_id, visibility_key, created_at, active)
    SELECT derived.pending_id, derived.session_id, derived.task_id, COALESCE((SELECT CASE WHEN key_t.workspace_id = ''
      OR NOT EXISTS (SELECT 1 FROM workspaces key_w WHERE key_w.id = key_t.workspace_id)
    THEN '' ELSE key_t.workspace_id END
             FROM tasks key_t WHERE key_t.id = derived.task_id), ''), derived.created_at, derived.active
      FROM (SELECT b.pending_id,
        (array_agg(b.task_session_id ORDER BY b.created_at, b.id))[1] AS session_id,
        COALESCE((array_agg(COALESCE(NULLIF(b.task_id, ''), s.task_id, '') ORDER BY b.created_at, b.id))[1], '') AS task_id,
        MIN(b.created_at) AS created_at,
        bool_or((((b.type = 'clarification_request'
    AND b.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = b.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(b.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = b.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = b.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> b.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM b.turn_id)))) AS active
      FROM (SELECT m.*, m.metadata->>'pending_id' AS pending_id FROM task_session_messages m
             WHERE m.type = 'clarification_request' AND m.metadata->>'pending_id' IN (SELECT DISTINCT metadata->>'pending_id' FROM task_session_messages WHERE type = 'clarification_request' AND metadata ? 'pending_id')) b
      LEFT JOIN task_sessions s ON s.id = b.task_session_id
     GROUP BY b.pending_id) derived
    ON CONFLICT (pending_id) DO UPDATE SET active = EXCLUDED.active, created_at = EXCLUDED.created_at
      WHERE clarification_bundles.active IS DISTINCT FROM EXCLUDED.active
         OR clarification_bundles.created_at IS DISTINCT FROM EXCLUDED.created_at
    RETURNING pending_id, active`);

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
