/**
 * Behind PgBouncer: two replicas whose pooled connections go through a real PgBouncer 1.18
 * in transaction pooling — no prepared statements kept across transactions, `statement_timeout`
 * refused as a start-up parameter — with DATABASE_PREPARED_STATEMENTS=false, and whose LISTEN and
 * migrations use the direct connection (DATABASE_LISTEN_URL). The full lifecycle over REST (an
 * answer on one replica reaching the agent waiting on the other), the three-surface race with
 * exactly one winner, and the GraphQL subscription feed all run through it; the server-side
 * statement bound reaches PostgreSQL as the role's (here the database's) setting.
 */
import type pg from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../../support/app.js';
import { eventTypes, rowsOf } from '../../support/bundle-state.js';
import { createTestDatabase, openPool } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { createUser, freshBundle } from '../../support/fixtures.js';
import { subscribe } from '../../support/graphql.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';
import { type PgBouncer, startPgBouncer } from '../../support/pgbouncer.js';
import { checkRound } from '../../support/race.js';
import { captureStatements } from '../../support/statements.js';
import { ANSWERS, type Outcome, type Submission, submit, type Surface, SURFACES } from '../../support/surfaces.js';

const ROUNDS = 8;
const EVENTS = `subscription Events($after: String) { questionEvents(after: $after) { id type pendingId } }`;
const ANSWER = `mutation Answer($pendingId: String!, $answers: [AnswerInput!]!) { answerQuestion(pendingId: $pendingId, answers: $answers) { claimed } }`;
const REST_ANSWERS = ANSWERS.rest;

describe('behind PgBouncer 1.18 in transaction pooling', () => {
  let bouncer: PgBouncer;
  let direct: pg.Pool;
  let t: TestApp;
  let replica: TestApp;
  let token: string;
  let mcp: McpConnection;

  beforeAll(async () => {
    const directUrl = await createTestDatabase();
    direct = openPool(directUrl, 4);
    // The documented way the server-side bounds reach PostgreSQL behind a pooler: the role's settings
    // (ALTER ROLE parley SET …); on the shared test server, the test database's own.
    const name = new URL(directUrl).pathname.slice(1);
    await direct.query(`ALTER DATABASE ${name} SET statement_timeout = '15s'`);
    await direct.query(`ALTER DATABASE ${name} SET idle_in_transaction_session_timeout = '15s'`);
    bouncer = await startPgBouncer(directUrl);
    const config = { authMode: 'enabled', databaseListenUrl: directUrl, databasePreparedStatements: false } as const;
    t = await startApp({ databaseUrl: bouncer.url, config });
    replica = await startApp({ databaseUrl: bouncer.url, config });
    token = (await createUser(t, 'behind-pgbouncer')).token;
    mcp = await connectMcp(t.baseUrl, { bearer: token });
  });

  afterAll(async () => {
    await mcp?.close();
    await replica?.close();
    await t?.close();
    await bouncer?.stop();
    await direct?.end();
  });

  it('pools through PgBouncer, listens and migrates on the direct connection, and bounds statements by the role settings', async () => {
    const clients = await bouncer.admin('SHOW CLIENTS');
    const throughBouncer = new Set(clients.map((client) => client.application_name));
    expect(throughBouncer).toContain('parley');
    expect(throughBouncer).not.toContain('parley-listener');
    const { rows } = await direct.query<{ application_name: string; n: number }>(
      `SELECT application_name, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'parley-%' GROUP BY 1`,
    );
    expect(rows).toEqual([{ application_name: 'parley-listener', n: 2 }]);
    const [settings] = await t.app.get(DataSource).query<Array<{ statement: string; idle: string }>>(
      `SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle`,
    );
    expect(settings).toEqual({ statement: '15s', idle: '15s' });
  });

  it('ask → answer → wait over REST: the answer on one replica reaches the agent waiting on the other, all statements unnamed', async () => {
    const { pendingId, agentToken } = await freshBundle(t, { bearer: token });
    const waiting = fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`, { headers: { authorization: `Bearer ${agentToken}` } });
    const parked = async () => ((await direct.query(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, [pendingId])).rowCount === 1 ? true : undefined);
    await eventually(parked, 5_000, 'the agent waiting');
    const capture = captureStatements(replica);
    const answered = await capture.during(() =>
      request(replica.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${token}`).send({ answers: REST_ANSWERS }),
    );
    capture.restore();
    expect({ status: answered.result.status, claimed: answered.result.body.claimed }).toEqual({ status: 200, claimed: true });
    expect(answered.pool.length).toBeGreaterThan(0);
    expect(answered.named).toEqual([]);
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(await woken.json()).toMatchObject({ pending_id: pendingId, answers: REST_ANSWERS, rejected: false });
    const again = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).set('authorization', `Bearer ${agentToken}`).expect(200);
    expect(again.body).toMatchObject({ pending_id: pendingId, answers: REST_ANSWERS });
  });

  it('REST, GraphQL and MCP racing on one bundle across the replicas: exactly one winner, every round', async () => {
    const submissions: Record<Surface, Submission> = {
      rest: { kind: 'answer', answers: ANSWERS.rest },
      graphql: { kind: 'answer', answers: ANSWERS.graphql },
      mcp: { kind: 'answer', answers: ANSWERS.mcp },
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const { pendingId } = await freshBundle(t, { bearer: token });
      const outcomes = await Promise.all(
        SURFACES.map(async (surface): Promise<[Surface, Outcome]> => {
          // GraphQL answers on the other replica: the claims meet in PostgreSQL, through PgBouncer.
          const baseUrl = surface === 'graphql' ? replica.baseUrl : t.baseUrl;
          return [surface, await submit(surface, { baseUrl, token, mcp }, pendingId, submissions[surface])];
        }),
      );
      const winner = checkRound({ outcomes, rows: await rowsOf(direct, pendingId), submissions });
      expect(winner).toBeDefined();
      expect(await eventTypes(direct, pendingId)).toEqual(['ASKED', 'ANSWERED']);
    }
  });

  it('the GraphQL subscription on one replica receives ASKED and ANSWERED of a bundle asked and answered on the other', async () => {
    const { rows } = await direct.query<{ id: string }>(`SELECT COALESCE(MAX(id), 0)::text AS id FROM question_events`);
    const subscription = subscribe<{ questionEvents: { type: string; pendingId: string } }>(replica, EVENTS, {
      connectionParams: { authorization: `Bearer ${token}` },
      variables: { after: rows[0]?.id ?? '0' },
    });
    try {
      await subscription.connected;
      const { pendingId } = await freshBundle(t, { bearer: token });
      const answers = ANSWERS.graphql.map((answer) => ({ questionId: answer.question_id, selectedOptions: answer.selected_options, customText: answer.custom_text }));
      const answer = await request(t.baseUrl).post('/graphql').set('authorization', `Bearer ${token}`).send({ query: ANSWER, variables: { pendingId, answers } });
      expect(answer.body).toEqual({ data: { answerQuestion: { claimed: true } } });
      const events = await subscription.waitFor(2);
      expect(events.map(({ questionEvents }) => [questionEvents.type, questionEvents.pendingId])).toEqual([
        ['ASKED', pendingId],
        ['ANSWERED', pendingId],
      ]);
    } finally {
      await subscription.close();
    }
  });
});
