/**
 * Routing's eligibility (rule Q1) on every answering surface and every listing, and the routing
 * object's validation: with `answerers`, only those users (and an admin) may answer; anyone else who
 * sees the bundle gets 403 NOT_ELIGIBLE (the command API: not_eligible), every listing says
 * `eligible: false` and who is assigned, and a caller who cannot see the bundle still gets the 404 of
 * a missing one. Every bad routing object is a 400 naming its field, and nothing is written; a scoped
 * asker may name only users who can see the task, and any other id — existing or not — gets one message.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { answerRequest, command, decisionRefOf, pendingInteractions } from '../../support/decisions.js';
import { gql } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';
import { ADMIN, askRouted, ONE_QUESTION, type Person, PICK, respondAs, team, type Team } from '../../support/routing.js';

describe('routing: who may answer', () => {
  let t: TestApp;
  let crew: Team;
  let pendingId: string;
  let alice: Team['members'][number];
  let bob: Team['members'][number];

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    crew = await team(t, 2, 'elig');
    [alice, bob] = crew.members as [Team['members'][number], Team['members'][number]];
    const asked = await askRouted(t, crew, ONE_QUESTION, { answerers: { user_ids: [alice.id] } }).expect(200);
    pendingId = asked.body.pending_id as string;
  });

  afterAll(async () => {
    await t.close();
  });

  it('lists the bundle for everyone who sees it, with eligible and who is assigned (REST, GraphQL, MCP, pending interactions)', async () => {
    for (const [who, eligible] of [[alice, true], [bob, false], [crew.owner, false]] as const) {
      const list = await request(t.baseUrl).get('/api/v1/clarification').set('authorization', `Bearer ${who.token}`).expect(200);
      const bundle = (list.body.bundles as { pending_id: string; eligible: boolean; routing: unknown }[]).find((b) => b.pending_id === pendingId);
      expect(bundle).toMatchObject({
        eligible,
        routing: { answerers: { user_ids: [alice.id] }, assigned_to: [{ user_id: alice.id, name: alice.name }], required_answers: 1 },
      });
      const graph = await gql<{ pendingQuestions: { nodes: { pendingId: string; eligible: boolean; routing: { assignedTo: { name: string }[] } }[] } }>(
        t,
        `{ pendingQuestions { nodes { pendingId eligible routing { answererIds assignedTo { userId name } requiredAnswers } } } }`,
        {},
        who.token,
      );
      expect(graph.body.data?.pendingQuestions.nodes.find((node) => node.pendingId === pendingId)).toMatchObject({
        eligible,
        routing: { answererIds: [alice.id], assignedTo: [{ userId: alice.id, name: alice.name }], requiredAnswers: 1 },
      });
      const mcp = await connectMcp(t.baseUrl, { bearer: who.token });
      const listed = JSON.parse((await mcp.call('list_pending_questions_kandev', {})).text) as { bundles: { pending_id: string; eligible: boolean }[] };
      expect(listed.bundles.find((b) => b.pending_id === pendingId)?.eligible).toBe(eligible);
      await mcp.close();
      const interactions = (await pendingInteractions(t, who.token)) as unknown as { pending_id: string; eligible: boolean; routing: unknown }[];
      expect(interactions.find((item) => item.pending_id === pendingId)).toMatchObject({ eligible, routing: { assigned_to: [{ user_id: alice.id }] } });
      const one = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${who.token}`).expect(200);
      expect(one.body).toMatchObject({ eligible, routing: { answerers: { user_ids: [alice.id] } }, votes: [] });
    }
  });

  it('refuses an ineligible person with 403 NOT_ELIGIBLE on REST, GraphQL, MCP and the command API, changing nothing', async () => {
    const rest = await respondAs(t, bob.token, pendingId, { answers: PICK('sqlite') });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ code: 'NOT_ELIGIBLE' });
    expect(rest.body.error).toContain(alice.name);
    const rejecting = await respondAs(t, bob.token, pendingId, { rejected: true, reject_reason: 'no' });
    expect(rejecting.status).toBe(403);

    const graph = await gql(t, `mutation($p: String!) { answerQuestion(pendingId: $p, answers: [{questionId: "db", selectedOptions: ["sqlite"]}]) { claimed } }`, { p: pendingId }, bob.token);
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('NOT_ELIGIBLE');

    const mcp = await connectMcp(t.baseUrl, { bearer: bob.token });
    expect((await mcp.callError('answer_question_kandev', { pending_id: pendingId, answers: PICK('sqlite') })).code).toBe('NOT_ELIGIBLE');
    await mcp.close();

    const ref = await decisionRefOf(t, crew.fixture.sessionId, bob.token);
    for (const dryRun of [true, false]) {
      const result = await command(t, answerRequest(crew.fixture.sessionId, ref, { requestId: `bob-${String(dryRun)}`, dryRun, selection: { option_refs: ['2'] } }), bob.token);
      expect({ http: result.httpStatus, status: result.body.status }).toEqual({ http: 403, status: 'not_eligible' });
    }

    const state = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${alice.token}`).expect(200);
    expect(state.body.status).toBe('pending');
    const audit = await t.db.query<{ outcome: string }>(`SELECT outcome FROM clarification_audit WHERE pending_id = $1 AND outcome = 'not_eligible'`, [pendingId]);
    expect(audit.rows.length).toBeGreaterThan(0);
  });

  it('a caller who cannot see the bundle gets the same 404 as for a missing id', async () => {
    const foreign = await respondAs(t, crew.stranger.token, pendingId, { answers: PICK('sqlite') });
    const missing = await respondAs(t, crew.stranger.token, 'no-such-bundle', { answers: PICK('sqlite') });
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });
    expect(foreign.status).toBe(404);
  });

  it('the eligible person answers, and wins', async () => {
    const won = await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    expect(won.body).toMatchObject({ claimed: true, status: 'answered' });
    expect(won.body.vote).toBeUndefined();
    const again = await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    expect(again.body).toMatchObject({ claimed: false, status: 'answered' });
  });

  it('a bundle without routing is listed exactly as before (no routing keys; GraphQL: eligible true, routing null)', async () => {
    const plain = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${crew.owner.token}`)
      .send({ session_id: crew.fixture.sessionId, questions: [{ ...ONE_QUESTION[0], id: 'plain' }] })
      .expect(200);
    const list = await request(t.baseUrl).get('/api/v1/clarification').set('authorization', `Bearer ${bob.token}`).expect(200);
    const listed = (list.body.bundles as Record<string, unknown>[]).find((b) => b.pending_id === plain.body.pending_id);
    expect(Object.keys(listed ?? {}).sort()).toEqual(['age_seconds', 'context', 'created_at', 'pending_id', 'questions', 'session_id', 'task_id']);
    const one = await request(t.baseUrl).get(`/api/v1/clarification/${plain.body.pending_id as string}`).set('authorization', `Bearer ${bob.token}`).expect(200);
    expect(one.body).not.toHaveProperty('routing');
    const graph = await gql<{ question: { eligible: boolean; routing: null; votes: [] } }>(t, `query($p: String!) { question(pendingId: $p) { eligible routing { requiredAnswers } votes { at } } }`, { p: plain.body.pending_id }, bob.token);
    expect(graph.body.data?.question).toEqual({ eligible: true, routing: null, votes: [] });
  });

  it('an admin token may answer a routed bundle', async () => {
    const asked = await askRouted(t, crew, [{ ...ONE_QUESTION[0], id: 'db', prompt: 'another' }], { answerers: { user_ids: [alice.id] } }).expect(200);
    const res = await request(t.baseUrl)
      .post(`/api/v1/clarification/${asked.body.pending_id as string}/respond`)
      .set('authorization', ADMIN)
      .send({ answers: PICK('duckdb') })
      .expect(200);
    expect(res.body).toMatchObject({ claimed: true, status: 'answered' });
  });
});

describe('routing: a bad routing object is a 400 naming the field, and changes nothing', () => {
  let t: TestApp;
  let crew: Team;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    crew = await team(t, 2, 'bad');
  });

  afterAll(async () => {
    await t.close();
  });

  const ids = () => crew.members.map((member) => member.id);

  const cases: [string, () => unknown, RegExp][] = [
    ['routing not an object', () => 'alice', /^routing must be an object/],
    ['an unknown key', () => ({ quorum: 2 }), /^routing\.quorum is not an allowed field/],
    ['answerers not an object', () => ({ answerers: ['x'] }), /^routing\.answerers must be an object/],
    ['answerers with an unknown key', () => ({ answerers: { user_ids: ids(), group: 'x' } }), /^routing\.answerers\.group is not an allowed field/],
    ['answerers.user_ids empty', () => ({ answerers: { user_ids: [] } }), /^routing\.answerers\.user_ids must be a non-empty array/],
    ['answerers.user_ids over 50', () => ({ answerers: { user_ids: Array.from({ length: 51 }, (_, i) => `u${i}`) } }), /^routing\.answerers\.user_ids must hold at most 50/],
    ['a user id not a string', () => ({ answerers: { user_ids: [7] } }), /^routing\.answerers\.user_ids\[0\] must be a non-empty string/],
    ['a repeated user id', () => ({ answerers: { user_ids: [ids()[0], ids()[0]] } }), /^routing\.answerers\.user_ids\[1\] is repeated/],
    ['an unknown user', () => ({ answerers: { user_ids: [ids()[0], 'no-such-user'] } }), /^routing\.answerers\.user_ids\[1\] is not a user who can see this task$/],
    ['required_answers 0', () => ({ required_answers: 0 }), /^routing\.required_answers must be an integer from 1 to 10/],
    ['required_answers 11', () => ({ required_answers: 11 }), /^routing\.required_answers must be an integer from 1 to 10/],
    ['required_answers 1.5', () => ({ required_answers: 1.5 }), /^routing\.required_answers must be an integer/],
    ['required_answers above the answerers', () => ({ answerers: { user_ids: ids() }, required_answers: 3 }), /^routing\.required_answers must be at most the number of answerers/],
    ['escalation not an array', () => ({ escalation: { after_seconds: 60 } }), /^routing\.escalation must be an array/],
    ['escalation over 5 steps', () => ({ escalation: [60, 90, 120, 150, 180, 210].map((s) => ({ after_seconds: s, remind: true })) }), /^routing\.escalation must hold at most 5 steps/],
    ['after_seconds below 30', () => ({ escalation: [{ after_seconds: 29, remind: true }] }), /^routing\.escalation\[0\]\.after_seconds must be an integer from 30/],
    ['after_seconds not increasing', () => ({ escalation: [{ after_seconds: 60, remind: true }, { after_seconds: 60, remind: true }] }), /^routing\.escalation\[1\]\.after_seconds must be greater/],
    ['a step doing nothing', () => ({ escalation: [{ after_seconds: 60 }] }), /^routing\.escalation\[0\] must set remind: true or reassign_to/],
    ['a step doing both', () => ({ escalation: [{ after_seconds: 60, remind: true, reassign_to: { user_ids: ids() } }] }), /^routing\.escalation\[0\] must either remind or reassign_to/],
    ['a step with an unknown key', () => ({ escalation: [{ after_seconds: 60, remind: true, email: 'x' }] }), /^routing\.escalation\[0\]\.email is not an allowed field/],
    ['remind not a boolean', () => ({ escalation: [{ after_seconds: 60, remind: 'yes' }] }), /^routing\.escalation\[0\]\.remind must be a boolean/],
    ['reassign_to an unknown user', () => ({ escalation: [{ after_seconds: 60, reassign_to: { user_ids: ['ghost'] } }] }), /^routing\.escalation\[0\]\.reassign_to\.user_ids\[0\] is not a user who can see this task$/],
    ['reassign_to fewer than required', () => ({ answerers: { user_ids: ids() }, required_answers: 2, escalation: [{ after_seconds: 60, reassign_to: { user_ids: [ids()[0]] } }] }), /^routing\.escalation\[0\]\.reassign_to\.user_ids must name at least required_answers/],
  ];

  it.each(cases)('REST: %s', async (_name, routing, message) => {
    const before = await t.db.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM task_session_messages`);
    const res = await askRouted(t, crew, ONE_QUESTION, routing());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(String(res.body.error)).toMatch(message);
    const after = await t.db.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM task_session_messages`);
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
    const steps = await t.db.query(`SELECT 1 FROM clarification_escalations`);
    expect(steps.rows).toEqual([]);
  });

  it.each(cases.filter(([name]) => ['an unknown user', 'required_answers 0', 'after_seconds below 30', 'an unknown key'].includes(name)))(
    'the in-session MCP ask: %s',
    async (_name, routing, message) => {
      const mcp = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: crew.fixture.agentToken });
      const failure = await mcp.callError('ask_user_question_kandev', { questions: ONE_QUESTION, routing: routing() as Record<string, unknown> });
      expect(failure.code).toBe('VALIDATION_ERROR');
      expect(failure.message).toMatch(message);
      await mcp.close();
      const rows = await t.db.query(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1`, [crew.fixture.sessionId]);
      expect(rows.rows).toEqual([]);
    },
  );

  it('a routing asking for nothing beyond the default is a bundle without routing', async () => {
    const asked = await askRouted(t, crew, ONE_QUESTION, { required_answers: 1 }).expect(200);
    const one = await request(t.baseUrl).get(`/api/v1/clarification/${asked.body.pending_id as string}`).set('authorization', ADMIN).expect(200);
    expect(one.body).not.toHaveProperty('routing');
  });

  it('a scoped asker may name only users who can see the task: anyone else, existing or not, is one 400, and no name is told', async () => {
    const scope = await team(t, 1, 'scope');
    const [member] = scope.members as [Person];
    const refused = (field: string) => ({ error: `${field} is not a user who can see this task`, code: 'VALIDATION_ERROR' });
    const messages = async () => (await t.db.query(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1`, [scope.fixture.sessionId])).rows.length;

    // The workspace's owner as asker (REST): a stranger who exists and an id naming no user get the same answer.
    for (const id of [scope.stranger.id, crew.owner.id, 'no-such-user']) {
      const answerers = await askRouted(t, scope, ONE_QUESTION, { answerers: { user_ids: [member.id, id] } });
      expect({ status: answerers.status, body: answerers.body as unknown }).toEqual({ status: 400, body: refused('routing.answerers.user_ids[1]') });
      const reassigned = await askRouted(t, scope, ONE_QUESTION, { escalation: [{ after_seconds: 60, reassign_to: { user_ids: [id] } }] });
      expect({ status: reassigned.status, body: reassigned.body as unknown }).toEqual({ status: 400, body: refused('routing.escalation[0].reassign_to.user_ids[0]') });
    }
    // The session's agent (the in-session MCP ask): the same.
    const agent = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: scope.fixture.agentToken });
    try {
      for (const id of [scope.stranger.id, 'no-such-user']) {
        const failure = await agent.callError('ask_user_question_kandev', { questions: ONE_QUESTION, routing: { answerers: { user_ids: [id] } } });
        expect({ code: failure.code, message: failure.message }).toEqual({ code: 'VALIDATION_ERROR', message: refused('routing.answerers.user_ids[0]').error });
      }
    } finally {
      await agent.close();
    }
    expect(await messages()).toBe(0);

    // The owner and a member can see it: named, and their names reported.
    const asked = await askRouted(t, scope, ONE_QUESTION, { answerers: { user_ids: [scope.owner.id, member.id] } }).expect(200);
    const one = await request(t.baseUrl).get(`/api/v1/clarification/${asked.body.pending_id as string}`).set('authorization', `Bearer ${scope.owner.token}`).expect(200);
    expect(one.body.routing.assigned_to).toEqual([
      { user_id: scope.owner.id, name: scope.owner.name },
      { user_id: member.id, name: member.name },
    ]);

    // An admin (unscoped) may still name any user who exists; one who does not gets the same message.
    const asAdmin = (id: string) =>
      request(t.baseUrl)
        .post('/api/v1/clarification/request')
        .set('authorization', ADMIN)
        .send({ session_id: scope.fixture.sessionId, questions: [{ ...ONE_QUESTION[0], id: `admin-${id}` }], routing: { answerers: { user_ids: [id] } } });
    await asAdmin(scope.stranger.id).expect(200);
    const missing = await asAdmin('no-such-user');
    expect({ status: missing.status, body: missing.body as unknown }).toEqual({ status: 400, body: refused('routing.answerers.user_ids[0]') });
  });
});
