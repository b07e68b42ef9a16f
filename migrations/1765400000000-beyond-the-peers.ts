import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Beyond the peers — who answered, the audit trail, deadlines and outbound webhooks
 * (docs/api/rest.md, "Who answered, the audit trail and deadlines"; docs/api/webhooks.md):
 * - `clarification_audit`: every resolution attempt (a winning one by its claim's own statement, any
 *   other once its outcome is known), never read by the claim (the message rows stay the one authority on whether a bundle is resolved, P1);
 * - `clarification_deadlines`: bundles asked with `expires_in_seconds`, swept when due;
 * - `webhook_subscriptions` and `webhook_deliveries`: per-workspace outbound webhooks and their
 *   durable outbox (rows inserted by the statement that inserts the question events they report).
 */
export class BeyondThePeers1765400000000 implements MigrationInterface {
  name = 'BeyondThePeers1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE clarification_audit (
        id bigserial PRIMARY KEY,
        attempt_id text NOT NULL UNIQUE,
        pending_id text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('won', 'lost', 'inactive', 'invalid', 'not_found', 'failed')),
        surface text NOT NULL CHECK (surface IN ('rest', 'web', 'mcp', 'graphql', 'command')),
        caller_kind text NOT NULL,
        caller_user_id text,
        caller_name text,
        rejected boolean,
        reject_reason text,
        detail text,
        at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX clarification_audit_bundle_idx ON clarification_audit (pending_id, at, id)`);
    await queryRunner.query(`CREATE INDEX clarification_audit_at_idx ON clarification_audit (at)`);

    await queryRunner.query(`
      CREATE TABLE clarification_deadlines (
        pending_id text PRIMARY KEY REFERENCES clarification_bundles (pending_id) ON DELETE CASCADE,
        session_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        due_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX clarification_deadlines_due_idx ON clarification_deadlines (due_at)`);

    await queryRunner.query(`
      CREATE TABLE webhook_subscriptions (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        url text NOT NULL,
        secret text NOT NULL,
        event_types text[] NOT NULL,
        format text NOT NULL CHECK (format IN ('json', 'slack')),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        consecutive_failures integer NOT NULL DEFAULT 0,
        disabled_reason text,
        disabled_at timestamptz,
        created_by text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`CREATE INDEX webhook_subscriptions_workspace_idx ON webhook_subscriptions (workspace_id, created_at, id)`);
    await queryRunner.query(`CREATE INDEX webhook_subscriptions_active_idx ON webhook_subscriptions (workspace_id) WHERE status = 'active'`);

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        subscription_id text NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        workspace_id text NOT NULL,
        event_id bigint NOT NULL,
        event_type text NOT NULL,
        pending_id text NOT NULL,
        session_id text NOT NULL,
        task_id text NOT NULL,
        payload jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'failed', 'skipped')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        lease_owner text,
        lease_expires_at timestamptz,
        last_status_code integer,
        last_error text,
        history jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (lease_expires_at) WHERE state = 'sending'`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (subscription_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_subscriptions`);
    await queryRunner.query(`DROP TABLE clarification_deadlines`);
    await queryRunner.query(`DROP TABLE clarification_audit`);
  }
}
