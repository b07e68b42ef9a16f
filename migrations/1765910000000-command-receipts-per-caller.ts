import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A caller key as the command API writes it (`callerId`): `user:<id>`, `admin` or `synthetic`; NULL for anything else. */
const AUDIT_CALLER_KEY = `CASE caller_kind WHEN 'user' THEN 'user:' || caller_user_id WHEN 'admin' THEN 'admin' WHEN 'synthetic' THEN 'synthetic' END`;

/** No caller ever has this key: a row given it is no caller's, and only the sweep and retention touch it. */
const UNATTRIBUTED = 'unattributed';

/**
 * Command request ids are per caller (docs/api/commands.md): `command_receipts` is keyed by
 * (`caller_key`, `request_id`) instead of `request_id` alone, and a decision claim records its
 * request's caller too, so another caller's use of the same id is invisible and never counts as
 * "this request's own" claim. The worker stays part of the command's canonical identity, not its key.
 *
 * Backfill: a receipt whose send started (`pending_id` set) is given the caller the audit trail
 * (and the vote rows) name for that bundle's command attempts when they name exactly one — then
 * its owner still replays it. Every other receipt (several or no named callers, or a send never
 * started) is `unattributed`: nobody replays it, its owner's retry is judged afresh against what is true
 * now, the sweep still settles its started send, and retention drops it within 7 days.
 */
export class CommandReceiptsPerCaller1765910000000 implements MigrationInterface {
  name = 'CommandReceiptsPerCaller1765910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE command_receipts ADD COLUMN caller_key text`);
    await queryRunner.query(`
      UPDATE command_receipts r SET caller_key = named.caller_key
        FROM (SELECT pending_id, min(caller_key) AS caller_key
                FROM (SELECT pending_id, ${AUDIT_CALLER_KEY} AS caller_key FROM clarification_audit WHERE surface = 'command'
                      UNION ALL
                      SELECT pending_id, ${AUDIT_CALLER_KEY} AS caller_key FROM clarification_votes WHERE surface = 'command') attempts
               GROUP BY pending_id
              HAVING count(*) = count(caller_key) AND count(DISTINCT caller_key) = 1) named
       WHERE r.pending_id = named.pending_id`);
    await queryRunner.query(`UPDATE command_receipts SET caller_key = $1 WHERE caller_key IS NULL`, [UNATTRIBUTED]);
    await queryRunner.query(`ALTER TABLE command_receipts ALTER COLUMN caller_key SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE command_receipts DROP CONSTRAINT command_receipts_pkey`);
    await queryRunner.query(`ALTER TABLE command_receipts ADD PRIMARY KEY (caller_key, request_id)`);

    await queryRunner.query(`ALTER TABLE decision_claims ADD COLUMN caller_key text`);
    await queryRunner.query(`
      UPDATE decision_claims c SET caller_key = r.caller_key FROM command_receipts r WHERE r.request_id = c.request_id`);
    await queryRunner.query(`UPDATE decision_claims SET caller_key = $1 WHERE caller_key IS NULL`, [UNATTRIBUTED]);
    await queryRunner.query(`ALTER TABLE decision_claims ALTER COLUMN caller_key SET NOT NULL`);
    await queryRunner.query(`DROP INDEX decision_claims_request_idx`);
    await queryRunner.query(`CREATE INDEX decision_claims_request_idx ON decision_claims (caller_key, request_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Global ids again: of several callers' receipts of one request_id only the earliest stays (with its claim).
    await queryRunner.query(`
      DELETE FROM command_receipts r USING command_receipts earlier
       WHERE earlier.request_id = r.request_id AND (earlier.created_at, earlier.caller_key) < (r.created_at, r.caller_key)`);
    await queryRunner.query(`
      DELETE FROM decision_claims c
       WHERE NOT EXISTS (SELECT 1 FROM command_receipts r WHERE r.caller_key = c.caller_key AND r.request_id = c.request_id)`);
    await queryRunner.query(`DROP INDEX decision_claims_request_idx`);
    await queryRunner.query(`CREATE INDEX decision_claims_request_idx ON decision_claims (request_id)`);
    await queryRunner.query(`ALTER TABLE decision_claims DROP COLUMN caller_key`);
    await queryRunner.query(`ALTER TABLE command_receipts DROP CONSTRAINT command_receipts_pkey`);
    await queryRunner.query(`ALTER TABLE command_receipts ADD PRIMARY KEY (request_id)`);
    await queryRunner.query(`ALTER TABLE command_receipts DROP COLUMN caller_key`);
  }
}
