import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The durable, ordered feed of clarification events behind the GraphQL subscription. */
export class QuestionEvents1764576000000 implements MigrationInterface {
  name = 'QuestionEvents1764576000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE question_events (
        id bigserial PRIMARY KEY,
        type text NOT NULL,
        pending_id text NOT NULL,
        session_id text NOT NULL DEFAULT '',
        task_id text NOT NULL DEFAULT '',
        workspace_id text NOT NULL DEFAULT '',
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX question_events_created_at_idx ON question_events (created_at)`);
    await queryRunner.query(`
      CREATE TABLE question_event_retention (
        id int PRIMARY KEY CHECK (id = 1),
        pruned_through bigint NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`INSERT INTO question_event_retention (id, pruned_through) VALUES (1, 0)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE question_event_retention`);
    await queryRunner.query(`DROP TABLE question_events`);
  }
}
