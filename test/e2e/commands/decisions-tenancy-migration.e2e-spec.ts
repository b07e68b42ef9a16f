/**
 * The migration that scopes command request ids to their caller, on a database holding what the
 * old code wrote: a receipt whose send started is given the one caller the audit trail (or the vote
 * rows) name for its bundle's command attempts, so its owner still replays it; any other receipt —
 * and its claim — is `unattributed`, a key no caller has. Down keeps the earliest receipt of each id.
 */
import pg from 'pg';
import type { QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../../migrations/index.js';
import { CommandReceiptsPerCaller1765910000000 } from '../../../migrations/1765910000000-command-receipts-per-caller.js';
import { insertSession } from '../../support/bundles.js';
import { createTestDatabase } from '../../support/database.js';

type State = 'reserved' | 'send_started' | 'accepted' | 'uncertain';

describe('migration: command receipts per caller', () => {
  let client: pg.Client;
  let runner: QueryRunner;
  let workerId: string;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: await createTestDatabase() });
    await client.connect();
    runner = { query: async (sql: string, parameters?: unknown[]) => (await client.query(sql, parameters)).rows } as unknown as QueryRunner;
    for (const Migration of MIGRATIONS.slice(0, MIGRATIONS.indexOf(CommandReceiptsPerCaller1765910000000))) await new Migration().up(runner);
    workerId = (await insertSession(client)).sessionId;
  });
  afterAll(async () => {
    await client.end();
  });

  async function receipt(requestId: string, state: State, pendingId: string | null, createdAt = new Date()): Promise<void> {
    const terminal = state === 'accepted' || state === 'uncertain';
    await client.query(
      `INSERT INTO command_receipts (request_id, action, canonical_version, canonical_fingerprint, canonical_json, worker_id, state, status,
                                     envelope, owner_token_hash, owner_expires_at, pending_id, created_at, reserved_at, terminal_at, updated_at)
       VALUES ($1, 'answer_decision', 1, 'fp', '{}', $2, $3, $3, $4, $5, $6, $7, $8, $8, $9, $8)`,
      [requestId, workerId, state, terminal ? `{"request_id":"${requestId}"}` : null, terminal ? null : 'owner', terminal ? null : new Date(), pendingId, createdAt, terminal ? createdAt : null],
    );
  }

  async function attempt(pendingId: string, surface: string, kind: string, userId: string | null): Promise<void> {
    await client.query(
      `INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, caller_user_id, at)
       VALUES (gen_random_uuid()::text, $1, 'won', $2, $3, $4, now())`,
      [pendingId, surface, kind, userId],
    );
  }

  async function keys(table: 'command_receipts' | 'decision_claims'): Promise<Record<string, string>> {
    const { rows } = await client.query<{ request_id: string; caller_key: string }>(`SELECT request_id, caller_key FROM ${table}`);
    return Object.fromEntries(rows.map((row) => [row.request_id, row.caller_key]));
  }

  it('attributes what the trail proves, leaves the rest to no caller, and goes back down to global ids', async () => {
    await receipt('tg-alice', 'accepted', 'p-alice');
    await attempt('p-alice', 'command', 'user', 'alice');
    await attempt('p-alice', 'rest', 'user', 'bob'); // another surface: not a command attempt
    await receipt('tg-shared', 'accepted', 'p-shared');
    await attempt('p-shared', 'command', 'user', 'alice');
    await attempt('p-shared', 'command', 'user', 'bob');
    await receipt('tg-synthetic', 'uncertain', 'p-synthetic');
    await attempt('p-synthetic', 'command', 'synthetic', null);
    await receipt('tg-vote', 'accepted', 'p-vote');
    await client.query(`INSERT INTO clarification_bundles (pending_id, session_id, created_at, active) VALUES ('p-vote', $1, now(), true)`, [workerId]);
    await client.query(
      `INSERT INTO clarification_votes (pending_id, voter, attempt_id, caller_kind, surface, rejected, answers, at)
       VALUES ('p-vote', 'admin', 'vote-1', 'admin', 'command', false, '[]', now())`,
    );
    await receipt('tg-unsent', 'reserved', null);
    await receipt('tg-sending', 'send_started', 'p-sending');
    await client.query(
      `INSERT INTO decision_claims (worker_id, claim_token_hash, request_id, decision_ref, state, claimed_at, expires_at, send_started_at)
       VALUES ($1, 'claim', 'tg-sending', 'decision-x', 'send_started', now(), now(), now())`,
      [workerId],
    );

    await new CommandReceiptsPerCaller1765910000000().up(runner);
    expect(await keys('command_receipts')).toEqual({
      'tg-alice': 'user:alice',
      'tg-shared': 'unattributed',
      'tg-synthetic': 'synthetic',
      'tg-vote': 'admin',
      'tg-unsent': 'unattributed',
      'tg-sending': 'unattributed',
    });
    expect(await keys('decision_claims')).toEqual({ 'tg-sending': 'unattributed' });
    // Ids are per caller now: bob may hold his own tg-alice.
    await client.query(`INSERT INTO command_receipts (caller_key, request_id, action, canonical_version, canonical_fingerprint, canonical_json, worker_id,
                                                      state, status, owner_token_hash, owner_expires_at, created_at, reserved_at, updated_at)
                        SELECT 'user:bob', request_id, action, canonical_version, canonical_fingerprint, canonical_json, worker_id,
                               'reserved', 'pending', 'owner', now(), now() + interval '1 second', now(), now()
                          FROM command_receipts WHERE request_id = 'tg-alice'`);
    await expect(client.query(`UPDATE command_receipts SET caller_key = 'user:alice' WHERE caller_key = 'user:bob'`)).rejects.toThrow(/duplicate key/);

    await new CommandReceiptsPerCaller1765910000000().down(runner);
    const { rows } = await client.query<{ request_id: string; state: string }>(`SELECT request_id, state FROM command_receipts WHERE request_id = 'tg-alice'`);
    expect(rows).toEqual([{ request_id: 'tg-alice', state: 'accepted' }]);
    expect((await client.query(`SELECT request_id FROM decision_claims`)).rows).toEqual([{ request_id: 'tg-sending' }]);
    await expect(receipt('tg-alice', 'reserved', null)).rejects.toThrow(/duplicate key/);
  });
});
