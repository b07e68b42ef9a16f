import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat as an answering surface (docs/channels.md):
 * - `chat_links`: which Parley user a Slack or Telegram account answers as;
 * - `chat_destinations`: where a workspace's bundles are posted on each platform;
 * - `chat_feed`: how far the card poster has read the question-event feed (one row per platform), so
 *   the answer path writes nothing for chat — the poster follows the events it already records;
 * - `chat_cards`: the outbox of cards, one row per bundle and destination (posted once, across restarts
 *   and replicas, claimed under a lease like webhook deliveries), with the version the card should show
 *   and the one it shows;
 * - `chat_interactions`: the platform's interaction or update id, so a retried click resolves nothing twice
 *   and gets the first outcome;
 * - `chat_link_requests`: a link asked for in chat (`/parley link`, `/link`), by the SHA-256 of its one-time
 *   code, until a signed-in person confirms it in the browser (or it expires);
 * - `chat_toggles`: what each Telegram account has ticked on a multi-select card (a keyboard is the
 *   same for everyone, so each person's ticks are kept here until they press Submit);
 * - `chat_pollers`: the lease of the one process that long-polls Telegram's getUpdates, and the offset
 *   of the next update to read.
 * The audit trail's surfaces gain `slack` and `telegram`.
 */
export class Chat1766100000000 implements MigrationInterface {
  name = 'Chat1766100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE chat_links (
        platform text NOT NULL CHECK (platform IN ('slack', 'telegram')),
        platform_user_id text NOT NULL,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (platform, platform_user_id)
      )`);
    await queryRunner.query(`CREATE INDEX chat_links_user ON chat_links (user_id, platform)`);
    await queryRunner.query(`
      CREATE TABLE chat_destinations (
        workspace_id text NOT NULL,
        platform text NOT NULL CHECK (platform IN ('slack', 'telegram')),
        destination text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (workspace_id, platform)
      )`);
    await queryRunner.query(`
      CREATE TABLE chat_feed (
        platform text PRIMARY KEY CHECK (platform IN ('slack', 'telegram')),
        position bigint NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE chat_cards (
        id text PRIMARY KEY,
        pending_id text NOT NULL,
        platform text NOT NULL CHECK (platform IN ('slack', 'telegram')),
        destination text NOT NULL,
        channel_ref text,
        message_ref text,
        wanted_version integer NOT NULL DEFAULT 1,
        shown_version integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        lease_owner text,
        lease_expires_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (pending_id, platform, destination)
      )`);
    await queryRunner.query(`CREATE INDEX chat_cards_due ON chat_cards (next_attempt_at) WHERE shown_version < wanted_version`);
    await queryRunner.query(`
      CREATE TABLE chat_interactions (
        platform text NOT NULL,
        interaction_id text NOT NULL,
        outcome jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (platform, interaction_id)
      )`);
    await queryRunner.query(`CREATE INDEX chat_interactions_created ON chat_interactions (created_at)`);
    await queryRunner.query(`
      CREATE TABLE chat_link_requests (
        code_sha256 text PRIMARY KEY,
        platform text NOT NULL CHECK (platform IN ('slack', 'telegram')),
        platform_user_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await queryRunner.query(`
      CREATE TABLE chat_toggles (
        platform text NOT NULL CHECK (platform IN ('telegram')),
        pending_id text NOT NULL,
        platform_user_id text NOT NULL,
        selected text[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (platform, pending_id, platform_user_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE chat_pollers (
        platform text PRIMARY KEY CHECK (platform IN ('telegram')),
        owner text,
        expires_at timestamptz,
        next_offset bigint NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_surface_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_surface_check
      CHECK (surface IN ('rest', 'web', 'mcp', 'mcp_app', 'graphql', 'command', 'escalation', 'slack', 'telegram'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM clarification_audit WHERE surface IN ('slack', 'telegram')`);
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_surface_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_surface_check
      CHECK (surface IN ('rest', 'web', 'mcp', 'mcp_app', 'graphql', 'command', 'escalation'))`);
    await queryRunner.query(`DROP TABLE chat_pollers`);
    await queryRunner.query(`DROP TABLE chat_toggles`);
    await queryRunner.query(`DROP TABLE chat_link_requests`);
    await queryRunner.query(`DROP TABLE chat_interactions`);
    await queryRunner.query(`DROP TABLE chat_cards`);
    await queryRunner.query(`DROP TABLE chat_feed`);
    await queryRunner.query(`DROP TABLE chat_destinations`);
    await queryRunner.query(`DROP TABLE chat_links`);
  }
}
