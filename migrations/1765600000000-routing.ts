import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams and routing:
 * - `workspace_members`: users who see a workspace as its owner does, besides its owner;
 * - `clarification_votes`: one vote per voter of a bundle asked with `routing.required_answers` > 1 (or
 *   with `routing.answerers`), written under the session's lock by the transaction that may also claim;
 * - `clarification_escalations`: the escalation steps still to run, one row each, swept when due and
 *   deleted by the transaction that runs them (so each runs once);
 * - the audit trail's outcomes gain `voted`, `not_eligible` and `escalated`, its surfaces `escalation`.
 */
export class Routing1765600000000 implements MigrationInterface {
  name = 'Routing1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE workspace_members (
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (workspace_id, user_id)
      )`);
    await queryRunner.query(`CREATE INDEX workspace_members_user_idx ON workspace_members (user_id, workspace_id)`);

    await queryRunner.query(`
      CREATE TABLE clarification_votes (
        pending_id text NOT NULL REFERENCES clarification_bundles (pending_id) ON DELETE CASCADE,
        voter text NOT NULL,
        seq bigserial NOT NULL,
        attempt_id text NOT NULL,
        caller_kind text NOT NULL,
        caller_user_id text,
        caller_name text,
        surface text NOT NULL,
        rejected boolean NOT NULL,
        reject_reason text NOT NULL DEFAULT '',
        answers jsonb NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (pending_id, voter)
      )`);

    await queryRunner.query(`
      CREATE TABLE clarification_escalations (
        pending_id text NOT NULL REFERENCES clarification_bundles (pending_id) ON DELETE CASCADE,
        step integer NOT NULL,
        session_id text NOT NULL,
        due_at timestamptz NOT NULL,
        action jsonb NOT NULL,
        PRIMARY KEY (pending_id, step)
      )`);
    await queryRunner.query(`CREATE INDEX clarification_escalations_due_idx ON clarification_escalations (due_at)`);

    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_outcome_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_outcome_check
      CHECK (outcome IN ('won', 'lost', 'inactive', 'invalid', 'not_found', 'failed', 'voted', 'not_eligible', 'escalated'))`);
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_surface_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_surface_check
      CHECK (surface IN ('rest', 'web', 'mcp', 'graphql', 'command', 'escalation'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM clarification_audit WHERE outcome IN ('voted', 'not_eligible', 'escalated') OR surface = 'escalation'`);
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_surface_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_surface_check
      CHECK (surface IN ('rest', 'web', 'mcp', 'graphql', 'command'))`);
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_outcome_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_outcome_check
      CHECK (outcome IN ('won', 'lost', 'inactive', 'invalid', 'not_found', 'failed'))`);
    await queryRunner.query(`DROP TABLE clarification_escalations`);
    await queryRunner.query(`DROP TABLE clarification_votes`);
    await queryRunner.query(`DROP TABLE workspace_members`);
  }
}
