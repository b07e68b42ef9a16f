import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { answerRequest, command, decisionRefOf } from '../../support/decisions.js';
import { browserHeaders, createUser, freshBundle, signIn } from '../../support/fixtures.js';
import { gql, gqlData } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';
import { captureStatements } from '../../support/statements.js';

/**
 * Every resolution attempt is recorded — bundle, outcome, surface, caller,
 * time, the reject reason as given — after its outcome is known; readable by whoever may see the
 * bundle (GET /clarification/:id/audit, GraphQL questionAudit), a foreign or fabricated id being the
 * same not-found. Not-found attempts are kept only for ids that name a bundle.
 */
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];
const ONE_QUESTION = [{ id: 'db', prompt: 'Which database?', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] }];

interface Attempt {
  id: string;
  pending_id: string;
  outcome: string;
  surface: string;
  caller: { kind: string; user_id: string | null; name: string | null };
  rejected: boolean | null;
  reject_reason: string | null;
  detail: string | null;
  at: string;
}

describe('the audit trail of resolution attempts', () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE } });
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
  });
  afterAll(async () => {
    await t.close();
  });

  async function audit(pendingId: string, token = alice.token, query = ''): Promise<Attempt[]> {
    const res = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit${query}`).set(as(token)).expect(200);
    return (res.body as { attempts: Attempt[] }).attempts;
  }

  it('every outcome: won, lost, inactive, invalid, not_found (a foreign caller), failed — each with its surface, caller, time and detail', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const respond = (token: string, body: object) => request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(token)).send(body);

    await respond(alice.token, { answers: [{ question_id: 'db', selected_options: ['nope'] }] }).expect(400); // invalid
    await respond(bob.token, { answers: ANSWERS }).expect(404); // not_found: bob may not see it
    await respond(alice.token, { rejected: true, reject_reason: '  Not now, maybe later  ' }).expect(200); // won
    // The winner's row is written by the claim's own statement: there the moment the answer is, with no flush.
    const committed = await t.db.query(`SELECT outcome, reject_reason FROM clarification_audit WHERE pending_id = $1 AND outcome = 'won'`, [pendingId]);
    expect(committed.rows).toEqual([{ outcome: 'won', reject_reason: '  Not now, maybe later  ' }]);
    await respond(TEST_ADMIN_TOKEN, { answers: ANSWERS }).expect(200); // lost

    const second = await freshBundle(t, { bearer: alice.token });
    await request(t.baseUrl).post(`/api/v1/sessions/${second.sessionId}/turns`).set(as(alice.token)).expect(201);
    await request(t.baseUrl).post(`/api/v1/clarification/${second.pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(409); // inactive

    const third = await freshBundle(t, { bearer: alice.token, resumeUrl: 'http://127.0.0.1:9/refused' });
    await request(t.baseUrl).post(`/api/v1/clarification/${third.pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(500); // failed

    const attempts = await audit(pendingId);
    expect(attempts.map((attempt) => [attempt.outcome, attempt.surface, attempt.caller.kind, attempt.caller.name])).toEqual([
      ['invalid', 'rest', 'user', 'alice'],
      ['not_found', 'rest', 'user', 'bob'],
      ['won', 'rest', 'user', 'alice'],
      ['lost', 'rest', 'admin', null],
    ]);
    const [invalid, notFound, won, lost] = attempts as [Attempt, Attempt, Attempt, Attempt];
    expect(invalid.detail).toMatch(/answers\[0\]/);
    expect(notFound).toMatchObject({ caller: { kind: 'user', user_id: bob.id, name: 'bob' }, rejected: null, detail: null });
    // The reason exactly as given (R2b's replay never carries it; the trail does).
    expect(won).toMatchObject({ rejected: true, reject_reason: '  Not now, maybe later  ', detail: null, pending_id: pendingId });
    expect(lost).toMatchObject({ rejected: null, reject_reason: null });
    expect(new Set(attempts.map((attempt) => attempt.id)).size).toBe(4);
    for (const attempt of attempts) expect(Date.parse(attempt.at)).not.toBeNaN();
    expect(attempts.map((attempt) => attempt.at)).toEqual([...attempts.map((attempt) => attempt.at)].sort());

    expect((await audit(second.pendingId)).map((attempt) => [attempt.outcome, attempt.detail])).toEqual([
      ['inactive', 'clarification request is no longer active'],
    ]);
    expect((await audit(third.pendingId)).map((attempt) => [attempt.outcome, attempt.detail])).toEqual([
      ['failed', expect.stringMatching(/^DELIVERY_FAILED: the agent could not be resumed/)],
    ]);
  });

  it('every surface: rest, web, mcp, graphql, command', async () => {
    const web = await freshBundle(t, { bearer: alice.token });
    const cookie = await signIn(t, alice.token);
    await request(t.baseUrl)
      .post(`/api/v1/clarification/${web.pendingId}/respond`)
      .set(browserHeaders(t, cookie))
      .set('x-parley-surface', 'web')
      .send({ answers: ANSWERS })
      .expect(200);

    const mcp = await freshBundle(t, { bearer: alice.token });
    const client = await connectMcp(t.baseUrl, { bearer: alice.token });
    try {
      await client.call('answer_question_kandev', { pending_id: mcp.pendingId, rejected: true, reason: 'from an agent' });
    } finally {
      await client.close();
    }

    const graphql = await freshBundle(t, { bearer: alice.token });
    await gqlData(t, `mutation ($id: String!) { rejectQuestion(pendingId: $id, reason: "via graphql") { claimed } }`, { id: graphql.pendingId }, alice.token);

    const connector = await freshBundle(t, { bearer: alice.token, questions: ONE_QUESTION });
    const decisionRef = await decisionRefOf(t, connector.sessionId, alice.token);
    expect((await command(t, answerRequest(connector.sessionId, decisionRef, { requestId: 'audit-1' }), alice.token)).body.status).toBe('accepted');

    const rest = await freshBundle(t, { bearer: alice.token });
    await request(t.baseUrl).post(`/api/v1/clarification/${rest.pendingId}/respond`).set(as(alice.token)).send({ answers: ANSWERS }).expect(200);

    const seen = [];
    for (const [surface, bundle] of [['web', web], ['mcp', mcp], ['graphql', graphql], ['command', connector], ['rest', rest]] as const) {
      const [attempt] = await audit(bundle.pendingId);
      seen.push([surface, attempt?.surface, attempt?.outcome, attempt?.caller.user_id]);
    }
    expect(seen).toEqual([
      ['web', 'web', 'won', alice.id],
      ['mcp', 'mcp', 'won', alice.id],
      ['graphql', 'graphql', 'won', alice.id],
      ['command', 'command', 'won', alice.id],
      ['rest', 'rest', 'won', alice.id],
    ]);
    expect((await audit(mcp.pendingId))[0]).toMatchObject({ rejected: true, reject_reason: 'from an agent' });
  });

  it('GraphQL questionAudit reads the same trail, paged', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    for (let n = 0; n < 3; n += 1) {
      await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(alice.token)).send({ answers: [] }).expect(400);
    }
    const query = `query ($id: String!, $after: String) { questionAudit(pendingId: $id, first: 2, after: $after) {
      nodes { id outcome surface caller { kind userId name } rejected rejectReason detail at } pageInfo { hasNextPage endCursor } } }`;
    const first = await gqlData<{ questionAudit: { nodes: Array<{ id: string; outcome: string }>; pageInfo: { hasNextPage: boolean; endCursor: string } } }>(
      t, query, { id: pendingId }, alice.token,
    );
    expect(first.questionAudit.nodes.map((node) => node.outcome)).toEqual(['invalid', 'invalid']);
    expect(first.questionAudit.pageInfo.hasNextPage).toBe(true);
    const rest = await gqlData<{ questionAudit: { nodes: Array<{ id: string }>; pageInfo: { hasNextPage: boolean } } }>(
      t, query, { id: pendingId, after: first.questionAudit.pageInfo.endCursor }, alice.token,
    );
    expect(rest.questionAudit.nodes).toHaveLength(1);
    expect(rest.questionAudit.pageInfo.hasNextPage).toBe(false);
    const rests = await audit(pendingId);
    expect([...first.questionAudit.nodes, ...rest.questionAudit.nodes].map((node) => node.id)).toEqual(rests.map((attempt) => attempt.id));
  });

  it('REST paging: limit and next_cursor; a bad cursor or limit is a 400 naming it', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    for (let n = 0; n < 3; n += 1) {
      await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(alice.token)).send({ answers: [] }).expect(400);
    }
    const page = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit?limit=2`).set(as(alice.token)).expect(200);
    expect(page.body.attempts).toHaveLength(2);
    const next = await request(t.baseUrl)
      .get(`/api/v1/clarification/${pendingId}/audit`)
      .query({ limit: 2, cursor: page.body.next_cursor as string })
      .set(as(alice.token))
      .expect(200);
    expect(next.body).toMatchObject({ next_cursor: '' });
    expect(next.body.attempts).toHaveLength(1);
    for (const [query, field] of [['?cursor=nope', 'cursor'], ['?limit=0', 'limit'], ['?limit=201', 'limit'], ['?limit=two', 'limit'], ['?page=2', 'page']]) {
      const bad = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit${query}`).set(as(alice.token)).expect(400);
      expect(bad.body.error).toMatch(new RegExp(`^${field} `));
    }
  });

  it('same authorization as the bundle: a foreign id and a fabricated one are the same 404, sending the same statements', async () => {
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    const foreign = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set(as(bob.token)).expect(404);
    const fabricated = await request(t.baseUrl).get(`/api/v1/clarification/${randomUUID()}/audit`).set(as(bob.token)).expect(404);
    expect(foreign.body).toEqual({ error: 'clarification request not found', code: 'NOT_FOUND' });
    expect(fabricated.body).toEqual(foreign.body);
    const graphqlForeign = await gql(t, `query ($id: String!) { questionAudit(pendingId: $id) { nodes { id } } }`, { id: pendingId }, bob.token);
    expect(graphqlForeign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const capture = captureStatements(t);
    try {
      const viaForeign = await capture.during(() => request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set(as(bob.token)));
      const viaFabricated = await capture.during(() => request(t.baseUrl).get(`/api/v1/clarification/${randomUUID()}/audit`).set(as(bob.token)));
      expect([viaForeign.result.status, viaFabricated.result.status]).toEqual([404, 404]);
      expect(viaForeign.pool.length).toBeGreaterThan(0);
      expect(viaForeign.pool).toEqual(viaFabricated.pool);
    } finally {
      capture.restore();
    }
    // The owner and the admin read it.
    await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set(as(alice.token)).expect(200);
    await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set(as(TEST_ADMIN_TOKEN)).expect(200);
  });

  it('not-found attempts for ids that name nothing are not stored: fabricated ids cannot grow the table', async () => {
    const count = async () => Number((await t.db.query(`SELECT COUNT(*) AS n FROM clarification_audit`)).rows[0].n);
    const { pendingId } = await freshBundle(t, { bearer: alice.token });
    await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set(as(alice.token)).expect(200); // flushes what is queued
    const before = await count();
    for (let n = 0; n < 20; n += 1) {
      await request(t.baseUrl).post(`/api/v1/clarification/${randomUUID()}/respond`).set(as(bob.token)).send({ rejected: true }).expect(404);
    }
    // A probe of a real bundle is kept (its owner sees it); then the trail is flushed by reading it.
    await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set(as(bob.token)).send({ rejected: true }).expect(404);
    expect((await audit(pendingId)).map((attempt) => attempt.outcome)).toEqual(['not_found']);
    expect(await count()).toBe(before + 1);
  });

  it('the claim never reads the trail (P1): claim and delivery code only ever writes clarification_audit', () => {
    for (const file of [
      'claim/claim.repository.ts',
      'claim/claim.sql.ts',
      'claim/delivery-ownership.repository.ts',
      'delivery/delivery.service.ts',
      'resolve/resolve-bundle.service.ts',
      'bundle/settlement.rules.ts',
      'bundle/bundle.repository.ts',
      'bundle/bundle.sql.ts',
    ]) {
      const source = readFileSync(`libs/clarification/src/${file}`, 'utf8');
      expect({ file, reads: /\b(FROM|JOIN)\s+clarification_audit\b/i.test(source) }).toEqual({ file, reads: false });
    }
  });
});
