/**
 * Escalation timers live in PostgreSQL (rule Q4): with two replicas sweeping the same database every
 * step fires exactly once — each replica takes due steps with SKIP LOCKED and runs each in the
 * transaction that deletes its row — and in order. A replica killed with SIGKILL in the middle of a
 * step (its transaction holding the step, its event written but not committed) fires nothing; the
 * surviving replica runs that step, once.
 */
import request from 'supertest';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { createRunningSession } from '../support/fixtures.js';
import { pausedAt, startReplica } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess } from '../support/server-process.js';

const SWEEP = { DEADLINE_SWEEP_INTERVAL_MS: '100' };
const QUESTION = [{ id: 'db', prompt: 'Choose', options: [{ option_id: 'a', label: 'A' }, { option_id: 'b', label: 'B' }] }];

describe('escalation steps across replicas', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let userIds: string[];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 4);
  });
  afterAll(async () => {
    await killAllServers();
    await db.end();
  });

  async function users(server: ServerProcess): Promise<string[]> {
    const made = [];
    for (const name of ['first', 'second']) made.push((await request(server.baseUrl).post('/api/v1/admin/users').send({ name }).expect(201)).body.id as string);
    return made;
  }

  async function routedBundle(server: ServerProcess): Promise<string> {
    const fixture = await createRunningSession(server);
    const routing = {
      answerers: { user_ids: [userIds[0]] },
      escalation: [
        { after_seconds: 30, remind: true },
        { after_seconds: 60, reassign_to: { user_ids: [userIds[1]] } },
      ],
    };
    const asked = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: QUESTION, routing }).expect(200);
    return asked.body.pending_id as string;
  }

  const eventTypes = async (pendingIds: string[]) =>
    (
      await db.query<{ pending_id: string; type: string }>(
        `SELECT pending_id, type FROM question_events WHERE pending_id = ANY($1::text[]) AND type IN ('REMINDED', 'ESCALATED') ORDER BY id`,
        [pendingIds],
      )
    ).rows;

  it('two replicas: every step of 20 ladders fires exactly once, in order', async () => {
    const a = await startReplica(databaseUrl, { ...SWEEP, DEADLINE_SWEEP_INTERVAL_MS: '3600000' });
    userIds = await users(a);
    const pendingIds: string[] = [];
    for (let n = 0; n < 20; n += 1) pendingIds.push(await routedBundle(a));
    await killServer(a);
    // Every step due at once; both replicas sweep the same rows.
    await db.query(`UPDATE clarification_escalations SET due_at = clock_timestamp() WHERE pending_id = ANY($1::text[])`, [pendingIds]);
    const [one, two] = await Promise.all([startReplica(databaseUrl, SWEEP), startReplica(databaseUrl, SWEEP)]);
    await eventually(
      async () => ((await db.query(`SELECT 1 FROM clarification_escalations WHERE pending_id = ANY($1::text[])`, [pendingIds])).rows.length === 0 ? true : undefined),
      30_000,
      'every step run',
    );
    const events = await eventTypes(pendingIds);
    for (const pendingId of pendingIds) {
      expect(events.filter((event) => event.pending_id === pendingId).map((event) => event.type)).toEqual(['REMINDED', 'ESCALATED']);
    }
    const answerers = await db.query<{ answerers: { user_id: string }[] }>(
      `SELECT DISTINCT metadata->'routing'->'answerers' AS answerers FROM task_session_messages WHERE metadata->>'pending_id' = ANY($1::text[])`,
      [pendingIds],
    );
    expect(answerers.rows.map((row) => row.answerers.map((user) => user.user_id))).toEqual([[userIds[1]]]);
    const audited = await db.query(`SELECT 1 FROM clarification_audit WHERE pending_id = ANY($1::text[]) AND outcome = 'escalated'`, [pendingIds]);
    expect(audited.rows).toHaveLength(20);
    await Promise.all([killServer(one), killServer(two)]);
  });

  it('a replica killed with SIGKILL mid-step fires nothing; the other runs the step once', async () => {
    const a = await startReplica(databaseUrl, { ...SWEEP, PARLEY_TEST_PAUSE_AT: 'escalation.step' });
    const pendingId = await routedBundle(a);
    await db.query(`UPDATE clarification_escalations SET due_at = clock_timestamp() WHERE pending_id = $1 AND step = 0`, [pendingId]);
    await pausedAt(a, 'escalation.step');
    // A holds the step: its REMINDED event is written in its open transaction, not committed.
    expect(await eventTypes([pendingId])).toEqual([]);
    const b = await startReplica(databaseUrl, SWEEP);
    expect(await eventTypes([pendingId])).toEqual([]);
    await killServer(a);
    await eventually(
      async () => ((await db.query(`SELECT 1 FROM clarification_escalations WHERE pending_id = $1 AND step = 0`, [pendingId])).rows.length === 0 ? true : undefined),
      20_000,
      'the step run by the surviving replica',
    );
    // The next step, made due, runs once too (behind the first).
    await db.query(`UPDATE clarification_escalations SET due_at = clock_timestamp() WHERE pending_id = $1`, [pendingId]);
    await eventually(
      async () => ((await db.query(`SELECT 1 FROM clarification_escalations WHERE pending_id = $1`, [pendingId])).rows.length === 0 ? true : undefined),
      20_000,
      'the ladder done',
    );
    expect((await eventTypes([pendingId])).map((event) => event.type)).toEqual(['REMINDED', 'ESCALATED']);
    await killServer(b);
  });
});
