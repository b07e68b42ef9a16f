/**
 * The questionEvents subscription over graphql-ws: delivery of all seven event types produced
 * through the public API, the durable feed (question_events) and reconnect-with-cursor recovery,
 * per-event authorization with the identity taken from the connection, bounded retention, and
 * delivery across two application instances sharing one database.
 */
import request from 'supertest';
import { QuestionEventService } from '#clarification';
import { QUESTION_EVENT_RETENTION_MS, QuestionEventRepository } from '#clarification/testing';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createUser, signIn, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gqlData, gqlError, graphqlErrorsOf, openStreams, subscribe, type Subscription, type SubscribeOptions } from '../../support/graphql.js';

const EVENTS = `subscription Events($workspaceId: String, $after: String) {
  questionEvents(workspaceId: $workspaceId, after: $after) {
    id type pendingId sessionId taskId workspaceId occurredAt
    response { answers { questionId selectedOptions customText } rejected rejectReason }
  } }`;
const ANSWER = `mutation Answer($pendingId: String!, $answers: [AnswerInput!]!) {
  answerQuestion(pendingId: $pendingId, answers: $answers) { claimed status } }`;
const REJECT = `mutation Reject($pendingId: String!, $reason: String) { rejectQuestion(pendingId: $pendingId, reason: $reason) { claimed status } }`;
const CANONICAL = [
  { questionId: 'db', selectedOptions: ['pg'], customText: '' },
  { questionId: 'q2', selectedOptions: [], customText: 'tomorrow' },
];
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

interface QuestionEvent {
  id: string;
  type: string;
  pendingId: string;
  sessionId: string;
  taskId: string;
  workspaceId: string;
  occurredAt: string;
  response: { answers: Array<{ questionId: string; selectedOptions: string[]; customText: string }>; rejected: boolean; rejectReason: string } | null;
}

type EventPayload = { questionEvents: QuestionEvent };

const eventsOf = (subscription: Subscription<EventPayload>): QuestionEvent[] => subscription.events.map((event) => event.questionEvents);
const summary = (events: QuestionEvent[]) => events.map((event) => [event.type, event.pendingId]);

/**
 * Every event the subscription received up to and including the sentinel bundle's ASKED. Events
 * arrive in id order, so once the sentinel is there every earlier event has been decided: nothing
 * else will arrive before it (no waiting for silence).
 */
async function throughSentinel(subscription: Subscription<EventPayload>, sentinel: string): Promise<QuestionEvent[]> {
  for (let n = 1; ; n += 1) {
    const events = await subscription.waitFor(n);
    if (events.some((event) => event.questionEvents.pendingId === sentinel)) return eventsOf(subscription);
  }
}

// ---------------------------------------------------------------------------------------------
// Arranging through the public API
// ---------------------------------------------------------------------------------------------

interface Session {
  workspaceId: string;
  taskId: string;
  sessionId: string;
  turnId: string;
}

function api(t: TestApp, bearer: string | undefined) {
  const auth = (req: request.Test) => (bearer ? req.set('authorization', `Bearer ${bearer}`) : req);
  return {
    post: (path: string, body: object = {}) => auth(request(t.baseUrl).post(path)).send(body),
    patch: (path: string, body: object) => auth(request(t.baseUrl).patch(path)).send(body),
  };
}

async function createWorkspace(t: TestApp, bearer: string | undefined): Promise<string> {
  const res = await api(t, bearer).post('/api/v1/workspaces', { name: 'events' }).expect(201);
  return res.body.id as string;
}

/** A task in `workspaceId`, a RUNNING session and a started turn. */
async function createSession(t: TestApp, workspaceId: string, bearer: string | undefined): Promise<Session> {
  const call = api(t, bearer);
  const task = await call.post('/api/v1/tasks', { title: 'task', workspace_id: workspaceId }).expect(201);
  const session = await call.post(`/api/v1/tasks/${task.body.id}/sessions`).expect(201);
  await call.patch(`/api/v1/sessions/${session.body.id}`, { state: 'RUNNING' }).expect(200);
  const turn = await call.post(`/api/v1/sessions/${session.body.id}/turns`).expect(201);
  return { workspaceId, taskId: task.body.id, sessionId: session.body.id, turnId: turn.body.id };
}

async function ask(t: TestApp, session: Session, bearer: string | undefined): Promise<string> {
  const res = await api(t, bearer).post('/api/v1/clarification/request', { session_id: session.sessionId, questions: TWO_QUESTIONS }).expect(200);
  return res.body.pending_id as string;
}

/** The newest event id: a cursor that makes "everything from now on" deterministic. */
async function latestEventId(t: TestApp): Promise<string> {
  await t.app.get(QuestionEventService).flushed();
  const { rows } = await t.db.query<{ id: string }>(`SELECT COALESCE(MAX(id), 0)::text AS id FROM question_events`);
  return rows[0]?.id ?? '0';
}

// ---------------------------------------------------------------------------------------------

describe('questionEvents (AUTH_MODE=enabled)', () => {
  let t: TestApp;
  const open: Array<Subscription<EventPayload>> = [];

  function watch(options: SubscribeOptions): Subscription<EventPayload> {
    const subscription = subscribe<EventPayload>(t, EVENTS, options);
    open.push(subscription);
    return subscription;
  }

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((subscription) => subscription.close()));
    await openStreams(t, 0);
  });
  afterAll(async () => {
    await t.close();
  });

  it('all seven event types, produced through the public API, arrive in order with increasing ids and are durable', async () => {
    const workspaceId = await createWorkspace(t, TEST_ADMIN_TOKEN);
    const subscription = watch({ connectionParams: ADMIN, variables: { workspaceId, after: await latestEventId(t) } });
    await subscription.connected;
    const call = api(t, TEST_ADMIN_TOKEN);

    const answered = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p1 = await ask(t, answered, TEST_ADMIN_TOKEN);
    expect((await gqlData<{ answerQuestion: { claimed: boolean } }>(t, ANSWER, { pendingId: p1, answers: CANONICAL }, TEST_ADMIN_TOKEN)).answerQuestion.claimed).toBe(true);

    const rejected = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p2 = await ask(t, rejected, TEST_ADMIN_TOKEN);
    await gqlData(t, REJECT, { pendingId: p2, reason: 'not now' }, TEST_ADMIN_TOKEN);

    const cancelled = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p3 = await ask(t, cancelled, TEST_ADMIN_TOKEN);
    await call.post(`/api/v1/clarification/${p3}/cancel`).expect(200);

    const expired = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p4 = await ask(t, expired, TEST_ADMIN_TOKEN);
    await call.patch(`/api/v1/sessions/${expired.sessionId}`, { state: 'COMPLETED' }).expect(200);

    const superseded = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p5 = await ask(t, superseded, TEST_ADMIN_TOKEN);
    await call.post(`/api/v1/sessions/${superseded.sessionId}/turns`).expect(201);

    const detached = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p6 = await ask(t, detached, TEST_ADMIN_TOKEN);
    await call.post(`/api/v1/sessions/${detached.sessionId}/turns/${detached.turnId}/complete`).expect(200);

    await subscription.waitFor(12);
    const sentinel = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    const received = await throughSentinel(subscription, sentinel);
    expect(summary(received.slice(12))).toEqual([['ASKED', sentinel]]);
    const events = received.slice(0, 12);
    expect(summary(events)).toEqual([
      ['ASKED', p1],
      ['ANSWERED', p1],
      ['ASKED', p2],
      ['REJECTED', p2],
      ['ASKED', p3],
      ['CANCELLED', p3],
      ['ASKED', p4],
      ['EXPIRED', p4],
      ['ASKED', p5],
      ['SUPERSEDED', p5],
      ['ASKED', p6],
      ['DETACHED', p6],
    ]);
    // Strictly increasing ids.
    const ids = events.map((event) => BigInt(event.id));
    expect(ids.every((id, index) => index === 0 || id > (ids[index - 1]))).toBe(true);
    // Every event names its bundle's session, task and workspace.
    const sessions = [answered, answered, rejected, rejected, cancelled, cancelled, expired, expired, superseded, superseded, detached, detached];
    expect(events.map((event) => [event.sessionId, event.taskId, event.workspaceId])).toEqual(
      sessions.map((session) => [session.sessionId, session.taskId, workspaceId]),
    );
    for (const event of events) expect(new Date(event.occurredAt).toISOString()).toBe(event.occurredAt);
    // The response rides on ANSWERED and REJECTED only.
    expect(events[1]?.response).toEqual({ answers: CANONICAL, rejected: false, rejectReason: '' });
    expect(events[3]?.response).toEqual({ answers: [], rejected: true, rejectReason: 'not now' });
    expect(events.filter((_, index) => index !== 1 && index !== 3).map((event) => event.response)).toEqual(Array(10).fill(null));

    // The feed is the durable table.
    const { rows } = await t.db.query<{ id: string; type: string; pending_id: string; workspace_id: string }>(
      `SELECT id::text, type, pending_id, workspace_id FROM question_events WHERE id = ANY($1::bigint[]) ORDER BY question_events.id`,
      [events.map((event) => event.id)],
    );
    expect(rows).toEqual(events.map((event) => ({ id: event.id, type: event.type, pending_id: event.pendingId, workspace_id: workspaceId })));
  });

  it('a subscriber that reconnects with its last id receives every event it missed (once, in order), then live ones', async () => {
    const workspaceId = await createWorkspace(t, TEST_ADMIN_TOKEN);
    const first = watch({ connectionParams: ADMIN, variables: { workspaceId, after: await latestEventId(t) } });
    const session = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const p1 = await ask(t, session, TEST_ADMIN_TOKEN);
    const [seen] = (await first.waitFor(1)).map((event) => event.questionEvents);
    expect(seen?.type).toBe('ASKED');
    await first.close();

    // While disconnected: three events in this workspace, and one elsewhere.
    await gqlData(t, ANSWER, { pendingId: p1, answers: CANONICAL }, TEST_ADMIN_TOKEN);
    const p2 = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    await api(t, TEST_ADMIN_TOKEN).post(`/api/v1/clarification/${p2}/cancel`).expect(200);
    const elsewhere = await ask(t, await createSession(t, await createWorkspace(t, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    await t.app.get(QuestionEventService).flushed();

    const resumed = watch({ connectionParams: ADMIN, variables: { workspaceId, after: seen?.id } });
    await resumed.waitFor(3);
    const p3 = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    await resumed.waitFor(4);
    const sentinel = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    expect(summary(await throughSentinel(resumed, sentinel))).toEqual([
      ['ANSWERED', p1],
      ['ASKED', p2],
      ['CANCELLED', p2],
      ['ASKED', p3],
      ['ASKED', sentinel],
    ]);
    expect(eventsOf(resumed).map((event) => event.pendingId)).not.toContain(elsewhere);
    expect(BigInt(eventsOf(resumed)[0]?.id ?? '0')).toBeGreaterThan(BigInt(seen?.id ?? '0'));

    // Without a workspace filter the replay includes the other workspace's event, still in id order.
    const unfiltered = watch({ connectionParams: ADMIN, variables: { after: seen?.id } });
    expect(summary(await throughSentinel(unfiltered, sentinel))).toEqual([
      ['ANSWERED', p1],
      ['ASKED', p2],
      ['CANCELLED', p2],
      ['ASKED', elsewhere],
      ['ASKED', p3],
      ['ASKED', sentinel],
    ]);
  });

  it('per-event authorization: a scoped subscriber never receives a foreign event, live or replayed, whichever way it authenticated', async () => {
    const alice = await createUser(t, 'alice');
    const bob = await createUser(t, 'bob');
    const carol = await createUser(t, 'carol');
    const aliceWs = await createWorkspace(t, alice.token);
    const bobWs = await createWorkspace(t, bob.token);
    const sharedWs = await createWorkspace(t, TEST_ADMIN_TOKEN);
    const after = await latestEventId(t);

    // Three ways to present an identity: connection_init payload, upgrade Authorization header, upgrade cookie.
    const aliceSub = watch({ connectionParams: { authorization: `Bearer ${alice.token}` }, variables: { after } });
    const bobSub = watch({ headers: { authorization: `Bearer ${bob.token}` }, variables: { after } });
    const carolSub = watch({ headers: { cookie: await signIn(t, carol.token) }, variables: { after } });
    const adminSub = watch({ connectionParams: ADMIN, variables: { after } });
    // Alice asks for Bob's workspace: it is filtered per event, so she gets nothing.
    const aliceOnBobWs = watch({ connectionParams: { authorization: `Bearer ${alice.token}` }, variables: { after, workspaceId: bobWs } });
    await Promise.all([aliceSub, bobSub, carolSub, adminSub, aliceOnBobWs].map((subscription) => subscription.connected));

    const aliceSession = await createSession(t, aliceWs, alice.token);
    const bobSession = await createSession(t, bobWs, bob.token);
    const aliceP = await ask(t, aliceSession, alice.token);
    const bobP = await ask(t, bobSession, bob.token);
    await gqlData(t, ANSWER, { pendingId: bobP, answers: CANONICAL }, bob.token);
    await gqlData(t, REJECT, { pendingId: aliceP }, alice.token);
    const bobP2 = await ask(t, bobSession, bob.token);
    await api(t, bob.token).post(`/api/v1/clarification/${bobP2}/cancel`).expect(200);
    // The foreign events are surely recorded; then a sentinel everyone may see (an unowned workspace).
    await t.app.get(QuestionEventService).flushed();
    const sentinel = await ask(t, await createSession(t, sharedWs, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    await t.app.get(QuestionEventService).flushed();

    const untilSentinel = (subscription: Subscription<EventPayload>) => throughSentinel(subscription, sentinel);
    // Events are delivered in id order: once the sentinel arrived, every earlier event was decided.
    const seenByAlice = await untilSentinel(aliceSub);
    const seenByBob = await untilSentinel(bobSub);
    const seenByCarol = await untilSentinel(carolSub);
    const seenByAdmin = await untilSentinel(adminSub);

    expect(summary(seenByAlice)).toEqual([
      ['ASKED', aliceP],
      ['REJECTED', aliceP],
      ['ASKED', sentinel],
    ]);
    expect(summary(seenByBob)).toEqual([
      ['ASKED', bobP],
      ['ANSWERED', bobP],
      ['ASKED', bobP2],
      ['CANCELLED', bobP2],
      ['ASKED', sentinel],
    ]);
    expect(summary(seenByCarol)).toEqual([['ASKED', sentinel]]);
    expect(summary(seenByAdmin)).toEqual([
      ['ASKED', aliceP],
      ['ASKED', bobP],
      ['ANSWERED', bobP],
      ['REJECTED', aliceP],
      ['ASKED', bobP2],
      ['CANCELLED', bobP2],
      ['ASKED', sentinel],
    ]);
    expect(aliceOnBobWs.events).toEqual([]);
    expect(aliceOnBobWs.error).toBeUndefined();

    // A replay applies the same rule: Alice reconnecting from the same cursor gets only her own events again.
    const replay = watch({ connectionParams: { authorization: `Bearer ${alice.token}` }, variables: { after } });
    expect(summary(await untilSentinel(replay))).toEqual(summary(seenByAlice));
  });

  it('questionEventsCursor: the feed\'s position now; a subscription from it gets every event after it, even ones before the subscription was opened; no identity ⇒ UNAUTHENTICATED', async () => {
    const workspaceId = await createWorkspace(t, TEST_ADMIN_TOKEN);
    await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    await t.app.get(QuestionEventService).flushed();
    const { questionEventsCursor: cursor } = await gqlData<{ questionEventsCursor: string }>(t, `{ questionEventsCursor }`, {}, TEST_ADMIN_TOKEN);
    expect(cursor).toBe(await latestEventId(t));

    // Between reading the position and subscribing, a question is asked: the subscription still gets it.
    const between = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    await t.app.get(QuestionEventService).flushed();
    const fromCursor = watch({ connectionParams: ADMIN, variables: { workspaceId, after: cursor } });
    const sentinel = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    expect(summary(await throughSentinel(fromCursor, sentinel))).toEqual([
      ['ASKED', between],
      ['ASKED', sentinel],
    ]);

    expect((await gqlError(t, `{ questionEventsCursor }`)).extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('no identity ⇒ UNAUTHENTICATED and no events; a bad token in connection_init is refused; a bad upgrade header is UNAUTHENTICATED', async () => {
    const after = await latestEventId(t);
    const anonymous = watch({ variables: { after } });
    const badInit = watch({ connectionParams: { authorization: 'Bearer parley_pat_unknown' }, variables: { after } });
    const badHeader = watch({ headers: { authorization: 'Bearer parley_pat_unknown' }, variables: { after } });

    const anonymousError = await anonymous.waitForError();
    expect(graphqlErrorsOf(anonymousError).map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    const headerError = await badHeader.waitForError();
    expect(graphqlErrorsOf(headerError).map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    await badInit.waitForError();

    // Events happen; none of them reaches any of the three, while a live witness receives them.
    const witness = watch({ connectionParams: ADMIN });
    await openStreams(t, 1);
    const workspaceId = await createWorkspace(t, TEST_ADMIN_TOKEN);
    const pendingId = await ask(t, await createSession(t, workspaceId, TEST_ADMIN_TOKEN), TEST_ADMIN_TOKEN);
    expect(summary((await witness.waitFor(1)).map((event) => event.questionEvents))).toEqual([['ASKED', pendingId]]);
    for (const subscription of [anonymous, badInit, badHeader]) expect(subscription.events).toEqual([]);
  });

  it('`after`: a malformed id is VALIDATION_ERROR; one older than retention is VALIDATION_ERROR telling the client to re-list; the watermark itself is fine', async () => {
    const malformed = watch({ connectionParams: ADMIN, variables: { after: 'yesterday' } });
    const malformedErrors = graphqlErrorsOf(await malformed.waitForError());
    expect(malformedErrors.map((error) => [error.extensions?.code, error.path])).toEqual([['VALIDATION_ERROR', ['questionEvents']]]);
    expect(malformedErrors[0]?.message).toMatch(/after/);

    // Two events, then the first ages past retention and is pruned.
    const workspaceId = await createWorkspace(t, TEST_ADMIN_TOKEN);
    const session = await createSession(t, workspaceId, TEST_ADMIN_TOKEN);
    const before = await latestEventId(t);
    const p1 = await ask(t, session, TEST_ADMIN_TOKEN);
    await gqlData(t, REJECT, { pendingId: p1 }, TEST_ADMIN_TOKEN);
    await t.app.get(QuestionEventService).flushed();
    const { rows } = await t.db.query<{ id: string }>(`SELECT id::text FROM question_events WHERE pending_id = $1 ORDER BY id`, [p1]);
    const [askedId, rejectedId] = rows.map((row) => row.id);
    await t.db.query(`UPDATE question_events SET created_at = now() - interval '8 days' WHERE id <= $1::bigint`, [askedId]);
    const pruned = await t.app.get(QuestionEventRepository).prune(new Date(Date.now() - QUESTION_EVENT_RETENTION_MS));
    expect(pruned).toBeGreaterThanOrEqual(1);
    const watermark = await t.db.query<{ pruned_through: string }>(`SELECT pruned_through::text FROM question_event_retention WHERE id = 1`);
    expect(watermark.rows[0]?.pruned_through).toBe(askedId);
    expect((await t.db.query(`SELECT 1 FROM question_events WHERE id = $1::bigint`, [askedId])).rowCount).toBe(0);

    // A cursor before the pruned event has missed it for good.
    for (const stale of [before, '0']) {
      const tooOld = watch({ connectionParams: ADMIN, variables: { workspaceId, after: stale } });
      const errors = graphqlErrorsOf(await tooOld.waitForError());
      expect(errors.map((error) => error.extensions?.code)).toEqual(['VALIDATION_ERROR']);
      expect(errors[0]?.message).toMatch(/re-list/);
      expect(tooOld.events).toEqual([]);
    }
    // A client that saw the pruned event missed nothing: it gets the rest.
    const current = watch({ connectionParams: ADMIN, variables: { workspaceId, after: askedId } });
    expect(summary((await current.waitFor(1)).map((event) => event.questionEvents))).toEqual([['REJECTED', p1]]);
    expect(eventsOf(current)[0]?.id).toBe(rejectedId);
  });
});

// ---------------------------------------------------------------------------------------------

describe('questionEvents (AUTH_MODE=disabled) and across instances', () => {
  let t: TestApp;
  let other: TestApp;
  const open: Array<Subscription<EventPayload>> = [];

  beforeAll(async () => {
    t = await startApp();
    other = await startApp({ databaseUrl: t.databaseUrl });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((subscription) => subscription.close()));
    await Promise.all([openStreams(t, 0), openStreams(other, 0)]);
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  it('with auth disabled a subscriber needs no credential; without `after` it receives live events only', async () => {
    const workspaceId = await createWorkspace(t, undefined);
    const session = await createSession(t, workspaceId, undefined);
    const old = await ask(t, session, undefined);
    await t.app.get(QuestionEventService).flushed();
    const live = subscribe<EventPayload>(t, EVENTS, { variables: { workspaceId } });
    open.push(live);
    await openStreams(t, 1);
    await gqlData(t, ANSWER, { pendingId: old, answers: CANONICAL });
    const sentinel = await ask(t, await createSession(t, workspaceId, undefined), undefined);
    expect(summary(await throughSentinel(live, sentinel))).toEqual([
      ['ANSWERED', old],
      ['ASKED', sentinel],
    ]);
  });

  it('an event recorded by another instance on the same database reaches this instance’s subscribers', async () => {
    const workspaceId = await createWorkspace(t, undefined);
    const after = await latestEventId(t);
    const here = subscribe<EventPayload>(t, EVENTS, { variables: { workspaceId, after } });
    const there = subscribe<EventPayload>(other, EVENTS, { variables: { workspaceId, after } });
    open.push(here, there);
    await Promise.all([here.connected, there.connected]);
    // Asked and answered through the *other* instance.
    const session = await createSession(other, workspaceId, undefined);
    const pendingId = await ask(other, session, undefined);
    await gqlData(other, ANSWER, { pendingId, answers: CANONICAL });
    await here.waitFor(2, 10_000);
    await there.waitFor(2);
    expect(summary(eventsOf(here))).toEqual([
      ['ASKED', pendingId],
      ['ANSWERED', pendingId],
    ]);
    expect(eventsOf(here)).toEqual(eventsOf(there));
  });

  it('SUPERSEDED does not depend on in-memory state: a detached bundle, and a bundle asked on another instance, are superseded by a newer turn', async () => {
    const workspaceId = await createWorkspace(t, undefined);
    const after = await latestEventId(t);
    const watcher = subscribe<EventPayload>(t, EVENTS, { variables: { workspaceId, after } });
    open.push(watcher);

    // Detached first (the agent's wait ended when its turn completed), then a newer turn starts.
    const detached = await createSession(t, workspaceId, undefined);
    const p1 = await ask(t, detached, undefined);
    await api(t, undefined).post(`/api/v1/sessions/${detached.sessionId}/turns/${detached.turnId}/complete`).expect(200);
    await api(t, undefined).post(`/api/v1/sessions/${detached.sessionId}/turns`).expect(201);

    // Asked through one instance, superseded through the other.
    const remote = await createSession(other, workspaceId, undefined);
    const p2 = await ask(other, remote, undefined);
    await api(t, undefined).post(`/api/v1/sessions/${remote.sessionId}/turns`).expect(201);

    // Both bundles really are no longer pending.
    const pending = await gqlData<{ pendingQuestions: { nodes: Array<{ pendingId: string }> } }>(
      t,
      `query($workspaceId: String) { pendingQuestions(workspaceId: $workspaceId) { nodes { pendingId } } }`,
      { workspaceId },
    );
    expect(pending.pendingQuestions.nodes).toEqual([]);

    const sentinel = await ask(t, await createSession(t, workspaceId, undefined), undefined);
    expect(summary(await throughSentinel(watcher, sentinel))).toEqual([
      ['ASKED', p1],
      ['DETACHED', p1],
      ['SUPERSEDED', p1],
      ['ASKED', p2],
      ['SUPERSEDED', p2],
      ['ASKED', sentinel],
    ]);
  });
});
