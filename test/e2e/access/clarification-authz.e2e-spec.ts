/**
 * Authorization of the four clarification :id endpoints ("Authorization", A1–A9) in both
 * auth modes. There is one code path (A4): the same suite runs with AUTH_MODE=enabled, where a
 * foreign bundle must be indistinguishable from a fabricated id, and AUTH_MODE=disabled, where no
 * caller is ever newly denied and only A4's six enumerated changes are observable.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';

type Json = Record<string, unknown>;
type Method = 'get' | 'post';

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'now' },
];
// The spec's body (R10, A3) with the issue-14 `code` added; the same bytes for a foreign and a fabricated id.
const NOT_FOUND_TEXT = '{"error":"clarification request not found","code":"NOT_FOUND"}';
const NOT_ACTIVE = { error: 'clarification request is no longer active', code: 'CONFLICT' };
const WAIT_TIMEOUT_MS = 800;
/** Strings of the bundle that a denial must never leak (A3), besides the fixture's ids. */
const QUESTION_TEXT = ['Which database?', 'Deploy now?', 'Database', 'PostgreSQL', 'SQLite', 'relational'];

const ENDPOINTS: [string, Method, (id: string) => string, object | undefined][] = [
  ['POST /:id/respond', 'post', (id) => `/api/v1/clarification/${id}/respond`, { answers: ANSWERS }],
  ['GET /:id', 'get', (id) => `/api/v1/clarification/${id}`, undefined],
  ['GET /:id/wait', 'get', (id) => `/api/v1/clarification/${id}/wait`, undefined],
  ['POST /:id/cancel', 'post', (id) => `/api/v1/clarification/${id}/cancel`, undefined],
];

describe.each(['enabled', 'disabled'] as const)('clarification :id endpoints with AUTH_MODE=%s (spec A1–A9)', (mode) => {
  const scoped = mode === 'enabled';
  let t: TestApp;
  let alice: string;
  let bob: string;

  function call(base: string, method: Method, path: string, bearer: string | undefined, body?: object): Promise<request.Response> {
    let req = method === 'get' ? request(base).get(path) : request(base).post(path);
    if (bearer) req = req.set('authorization', `Bearer ${bearer}`);
    return body === undefined ? req.then((res) => res) : req.send(body).then((res) => res);
  }

  const respond = (pendingId: string, bearer: string | undefined, body: object, base = t.baseUrl) =>
    call(base, 'post', `/api/v1/clarification/${pendingId}/respond`, bearer, body);

  /** A bundle of TWO_QUESTIONS on a fresh RUNNING session of `owner` (alice unless said otherwise). */
  async function bundleOf(owner: string = alice): Promise<{ fixture: SessionFixture; pendingId: string }> {
    const fixture = await createRunningSession(t, { bearer: owner });
    const res = await call(t.baseUrl, 'post', '/api/v1/clarification/request', owner, {
      session_id: fixture.sessionId,
      questions: TWO_QUESTIONS,
    });
    expect(res.status).toBe(200);
    return { fixture, pendingId: (res.body as { pending_id: string }).pending_id };
  }

  async function bundleRows(pendingId: string) {
    const { rows } = await t.db.query<{ id: string; task_id: string; metadata: Json; updated_at: Date }>(
      `SELECT id, task_id, metadata, updated_at FROM task_session_messages
        WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request' ORDER BY created_at, id`,
      [pendingId],
    );
    return rows;
  }

  async function sessionSnapshot(sessionId: string) {
    const messages = await t.db.query(
      `SELECT id, type, turn_id, task_id, metadata, updated_at FROM task_session_messages WHERE task_session_id = $1 ORDER BY id`,
      [sessionId],
    );
    const turns = await t.db.query(`SELECT id, metadata FROM task_session_turns WHERE task_session_id = $1 ORDER BY id`, [sessionId]);
    const session = await t.db.query(`SELECT state, updated_at FROM task_sessions WHERE id = $1`, [sessionId]);
    return { messages: messages.rows, turns: turns.rows, session: session.rows };
  }

  /** A3 + A5: a denial is a 404 byte-identical to a fabricated id (status, body, content type) and leaks nothing. */
  function expectIndistinguishable(denied: request.Response, fabricated: request.Response, fixture: SessionFixture): void {
    expect(fabricated.status).toBe(404);
    expect(fabricated.text).toBe(NOT_FOUND_TEXT);
    expect(denied.status).toBe(fabricated.status);
    expect(denied.text).toBe(fabricated.text);
    expect(denied.headers['content-type']).toBe(fabricated.headers['content-type']);
    expect(denied.headers['content-type']).toMatch(/^application\/json/);
    expect(denied.headers['content-length']).toBe(fabricated.headers['content-length']);
    expect(denied.headers['www-authenticate']).toBeUndefined();
    for (const secret of [...QUESTION_TEXT, fixture.taskId, fixture.sessionId, fixture.workspaceId, fixture.turnId]) {
      expect(denied.text).not.toContain(secret);
    }
  }

  beforeAll(async () => {
    t = await startApp({ config: { authMode: mode, waitTimeoutMs: WAIT_TIMEOUT_MS } });
    alice = (await createUser(t, 'alice')).token;
    bob = (await createUser(t, 'bob')).token;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('A1/A2/A3: a foreign caller', () => {
    it(`A1: POST /:id/respond by another user ⇒ ${scoped ? '404 identical to a fabricated id, nothing changed' : '200 claimed:true (no caller newly denied)'}`, async () => {
      const { fixture, pendingId } = await bundleOf();
      const before = await sessionSnapshot(fixture.sessionId);
      const foreign = await respond(pendingId, bob, { answers: ANSWERS });
      const foreignReject = await respond(pendingId, bob, { rejected: true, reject_reason: 'no' });
      const fabricated = await respond(randomUUID(), bob, { answers: ANSWERS });
      if (scoped) {
        expectIndistinguishable(foreign, fabricated, fixture);
        expectIndistinguishable(foreignReject, fabricated, fixture);
        expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
        const owner = await respond(pendingId, alice, { answers: ANSWERS });
        expect(owner.status).toBe(200);
        expect(owner.body).toMatchObject({ success: true, claimed: true, status: 'answered' });
      } else {
        expect(fabricated.status).toBe(404);
        expect(fabricated.text).toBe(NOT_FOUND_TEXT);
        expect(foreign.status).toBe(200);
        expect(foreign.body).toMatchObject({ success: true, claimed: true, status: 'answered' });
        expect(foreignReject.status).toBe(200);
        expect(foreignReject.body).toMatchObject({ claimed: false, status: 'answered' });
      }
    });

    it(`A2: GET /:id by another user ⇒ ${scoped ? '404 identical to a fabricated id' : '200 with the request'}`, async () => {
      const { fixture, pendingId } = await bundleOf();
      const before = await sessionSnapshot(fixture.sessionId);
      const foreign = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}`, bob);
      const fabricated = await call(t.baseUrl, 'get', `/api/v1/clarification/${randomUUID()}`, bob);
      const owner = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}`, alice);
      expect(owner.status).toBe(200);
      expect(owner.body).toMatchObject({ pending_id: pendingId, session_id: fixture.sessionId, task_id: fixture.taskId });
      if (scoped) expectIndistinguishable(foreign, fabricated, fixture);
      else {
        expect(fabricated.text).toBe(NOT_FOUND_TEXT);
        expect(foreign.status).toBe(200);
        expect(foreign.text).toBe(owner.text);
      }
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
    });

    it(`A2/A5a: GET /:id/wait by another user ⇒ ${scoped ? 'the same status and body as a fabricated id (no existence oracle)' : '504 after blocking (authorized), fabricated ⇒ 404'}`, async () => {
      const { fixture, pendingId } = await bundleOf();
      const fabricatedStarted = Date.now();
      const fabricated = await call(t.baseUrl, 'get', `/api/v1/clarification/${randomUUID()}/wait`, bob);
      expect(Date.now() - fabricatedStarted).toBeLessThan(WAIT_TIMEOUT_MS);
      expect(fabricated.status).toBe(404);
      expect(fabricated.text).toBe(NOT_FOUND_TEXT);
      const started = Date.now();
      const foreign = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}/wait`, bob);
      if (scoped) {
        expectIndistinguishable(foreign, fabricated, fixture);
        expect(Date.now() - started).toBeLessThan(WAIT_TIMEOUT_MS);
      } else {
        expect(foreign.status).toBe(504);
        expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_TIMEOUT_MS - 50);
      }
      expect((await bundleRows(pendingId)).map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    });

    it(`A2: POST /:id/cancel by another user ⇒ ${scoped ? '404 identical to a fabricated id; rows and the live entry untouched' : '200 and the bundle is cancelled'}`, async () => {
      const { fixture, pendingId } = await bundleOf();
      const before = await sessionSnapshot(fixture.sessionId);
      const foreign = await call(t.baseUrl, 'post', `/api/v1/clarification/${pendingId}/cancel`, bob);
      const fabricated = await call(t.baseUrl, 'post', `/api/v1/clarification/${randomUUID()}/cancel`, bob);
      if (scoped) {
        expectIndistinguishable(foreign, fabricated, fixture);
        expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
        // The owner's cancel succeeding proves the foreign one left the bundle active.
        const owner = await call(t.baseUrl, 'post', `/api/v1/clarification/${pendingId}/cancel`, alice);
        expect(owner.status).toBe(200);
        expect(owner.body).toEqual({ success: true });
      } else {
        expect(fabricated.text).toBe(NOT_FOUND_TEXT);
        expect(foreign.status).toBe(200);
        expect(foreign.body).toEqual({ success: true });
      }
      expect((await bundleRows(pendingId)).map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
    });

    it('A3: the 404 body is exactly {"error":"clarification request not found"} on all four endpoints for a fabricated id', async () => {
      const { fixture } = await bundleOf();
      for (const [, method, path, body] of ENDPOINTS) {
        for (const bearer of [alice, bob]) {
          const res = await call(t.baseUrl, method, path(randomUUID()), bearer, body);
          expect(res.status).toBe(404);
          expect(res.text).toBe(NOT_FOUND_TEXT);
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          for (const secret of [...QUESTION_TEXT, fixture.taskId, fixture.sessionId, fixture.workspaceId]) {
            expect(res.text).not.toContain(secret);
          }
        }
      }
    });

    it('A4/D5-style visibility: a bundle in an unowned workspace is answerable by any user', async () => {
      const fixture = await createRunningSession(t, { bearer: TEST_ADMIN_TOKEN });
      const created = await call(t.baseUrl, 'post', '/api/v1/clarification/request', TEST_ADMIN_TOKEN, {
        session_id: fixture.sessionId,
        questions: TWO_QUESTIONS,
      });
      expect(created.status).toBe(200);
      const pendingId = (created.body as { pending_id: string }).pending_id;
      const res = await respond(pendingId, bob, { answers: ANSWERS });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ claimed: true, status: 'answered' });
    });

    if (scoped) {
      it('A4: an unscoped caller (the admin token) is authorized for every pending_id', async () => {
        const { pendingId } = await bundleOf();
        const get = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}`, TEST_ADMIN_TOKEN);
        expect(get.status).toBe(200);
        const res = await respond(pendingId, TEST_ADMIN_TOKEN, { answers: ANSWERS });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ claimed: true, status: 'answered' });
      });

      it('the four endpoints still require authentication (401 before any authorization)', async () => {
        const { pendingId } = await bundleOf();
        for (const [, method, path, body] of ENDPOINTS) {
          const res = await call(t.baseUrl, method, path(pendingId), undefined, body);
          expect(res.status).toBe(401);
        }
        expect((await bundleRows(pendingId)).map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
      });
    }
  });

  describe('A7: authorization before the in-memory read; authorized behaviour otherwise unchanged', () => {
    it('GET /:id of an answered bundle ⇒ the bundle with the winner\'s response for the owner; /wait ⇒ that response at once; both 404 for a foreign caller', async () => {
      const { fixture, pendingId } = await bundleOf();
      expect((await respond(pendingId, alice, { answers: ANSWERS })).body.claimed).toBe(true);
      const get = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}`, alice);
      expect(get.status).toBe(200);
      expect(get.body).toMatchObject({ pending_id: pendingId, status: 'answered', response: { answers: ANSWERS, rejected: false, reject_reason: '' } });
      const wait = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}/wait`, alice);
      expect(wait.status).toBe(200);
      expect(wait.body).toMatchObject({ pending_id: pendingId, answers: ANSWERS, rejected: false });
      if (scoped) {
        for (const suffix of ['', '/wait']) {
          const fabricated = await call(t.baseUrl, 'get', `/api/v1/clarification/${randomUUID()}${suffix}`, bob);
          expectIndistinguishable(await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}${suffix}`, bob), fabricated, fixture);
        }
      }
    });

    it('GET /:id/wait by the owner on a live bundle blocks and ends 504 on timeout', async () => {
      const { pendingId } = await bundleOf();
      const started = Date.now();
      const wait = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}/wait`, alice);
      expect(wait.status).toBe(504);
      expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_TIMEOUT_MS - 50);
      expect(Object.keys(JSON.parse(wait.text) as Json)).toEqual(['error', 'code']);
    });

    it('another instance (a second app on the same database) reads, waits on and cancels the bundle from its rows alone', async () => {
      const { fixture, pendingId } = await bundleOf();
      const other = await startApp({ databaseUrl: t.databaseUrl, config: { authMode: mode, waitTimeoutMs: WAIT_TIMEOUT_MS } });
      try {
        if (scoped) {
          for (const [, method, path, body] of ENDPOINTS) {
            const fabricated = await call(other.baseUrl, method, path(randomUUID()), bob, body);
            expectIndistinguishable(await call(other.baseUrl, method, path(pendingId), bob, body), fabricated, fixture);
          }
        }
        const get = await call(other.baseUrl, 'get', `/api/v1/clarification/${pendingId}`, alice);
        expect(get.status).toBe(200);
        expect(get.body).toMatchObject({ pending_id: pendingId, session_id: fixture.sessionId, task_id: fixture.taskId, status: 'pending', response: null });
        expect((get.body as { questions: { id: string }[] }).questions.map((q) => q.id)).toEqual(['db', 'q2']);
        const wait = await call(other.baseUrl, 'get', `/api/v1/clarification/${pendingId}/wait`, alice);
        expect(wait.status).toBe(504);
        const cancel = await call(other.baseUrl, 'post', `/api/v1/clarification/${pendingId}/cancel`, alice);
        expect(cancel.status).toBe(200);
        expect((await bundleRows(pendingId)).map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
      } finally {
        await other.close();
      }
    });
  });

  describe('A8 (M5): the authorizing task comes from the durable rows, resolved through the session when empty', () => {
    it('a bundle whose messages carry task_id "" is answerable by its owner and not found for a foreign user', async () => {
      const { fixture, pendingId } = await bundleOf();
      await t.db.query(`UPDATE task_session_messages SET task_id = '' WHERE metadata->>'pending_id' = $1`, [pendingId]);
      expect((await bundleRows(pendingId)).map((row) => row.task_id)).toEqual(['', '']);
      const before = await sessionSnapshot(fixture.sessionId);
      if (scoped) {
        for (const [, method, path, body] of ENDPOINTS) {
          const fabricated = await call(t.baseUrl, method, path(randomUUID()), bob, body);
          expectIndistinguishable(await call(t.baseUrl, method, path(pendingId), bob, body), fabricated, fixture);
        }
        expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
      }
      const get = await call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}`, alice);
      expect(get.status).toBe(200);
      const res = await respond(pendingId, alice, { answers: ANSWERS });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, claimed: true, status: 'answered' });
      expect((await bundleRows(pendingId)).map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
    });
  });

  describe('A9: cancel is authorized without being claimed', () => {
    it('the owner cancels a live bundle: 200, waiters woken, rows cancelled (not answered); answering afterwards ⇒ 409', async () => {
      const { pendingId } = await bundleOf();
      const waiting = call(t.baseUrl, 'get', `/api/v1/clarification/${pendingId}/wait`, alice);
      const waiters = t.app.get(WaiterStore);
      await eventually(() => (waiters.waiterCount(pendingId) > 0 ? true : undefined), 5000, 'a live waiter');
      expect(waiters.waiterCount(pendingId)).toBe(1);

      const cancel = await call(t.baseUrl, 'post', `/api/v1/clarification/${pendingId}/cancel`, alice);
      expect(cancel.status).toBe(200);
      expect(cancel.body).toEqual({ success: true });
      const woken = await waiting;
      expect(woken.status).toBe(504);

      const rows = await bundleRows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
      expect(rows.some((row) => 'response' in row.metadata || 'response_delivery_pending' in row.metadata)).toBe(false);
      const { rows: resumes } = await t.db.query(`SELECT id FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type <> 'clarification_request'`, [pendingId]);
      expect(resumes).toEqual([]);

      const answer = await respond(pendingId, alice, { answers: ANSWERS });
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual(NOT_ACTIVE);
      const again = await call(t.baseUrl, 'post', `/api/v1/clarification/${pendingId}/cancel`, alice);
      expect(again.status).toBe(409);
      expect(again.body).toEqual(NOT_ACTIVE);
    });
  });

  describe('A6: creation is unchanged', () => {
    it('POST /request ⇒ 200 {pending_id}; an identical pending bundle is returned, not duplicated; 400 on invalid questions', async () => {
      const fixture = await createRunningSession(t, { bearer: alice });
      const body = { session_id: fixture.sessionId, questions: TWO_QUESTIONS, context: 'ctx' };
      const first = await call(t.baseUrl, 'post', '/api/v1/clarification/request', alice, body);
      expect(first.status).toBe(200);
      expect(Object.keys(JSON.parse(first.text) as Json)).toEqual(['pending_id']);
      const pendingId = (first.body as { pending_id: string }).pending_id;
      const again = await call(t.baseUrl, 'post', '/api/v1/clarification/request', alice, body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ pending_id: pendingId });
      expect(await bundleRows(pendingId)).toHaveLength(2);
      const invalid = await call(t.baseUrl, 'post', '/api/v1/clarification/request', alice, {
        session_id: fixture.sessionId,
        questions: [{ prompt: 'only one option', options: [{ label: 'x' }] }],
      });
      expect(invalid.status).toBe(400);
      expect(Object.keys(invalid.body as Json)).toEqual(['error', 'code']);
    });
  });

  describe('A4: the six deliberate changes are present in this mode too (one code path)', () => {
    it('1. a duplicate after a winner ⇒ 200 claimed:false with the winner payload (not 409)', async () => {
      const { pendingId } = await bundleOf();
      const winner = await respond(pendingId, alice, { answers: ANSWERS });
      expect(winner.status).toBe(200);
      const duplicate = await respond(pendingId, alice, { answers: [{ question_id: 'db' }, { question_id: 'q2' }] });
      expect(duplicate.status).toBe(200);
      expect(JSON.parse(duplicate.text)).toEqual({
        success: true,
        claimed: false,
        status: 'answered',
        receipt: expect.any(String),
        response: { answers: ANSWERS, rejected: false, reject_reason: '' },
      });
    });

    it('2. every successful respond carries success, claimed, status and response (all keys present)', async () => {
      const { pendingId } = await bundleOf();
      const res = await respond(pendingId, alice, { rejected: true });
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text) as Json;
      expect(Object.keys(body).sort()).toEqual(['claimed', 'receipt', 'response', 'status', 'success']);
      expect(body).toEqual({ success: true, claimed: true, status: 'rejected', receipt: expect.any(String), response: { answers: [], rejected: true, reject_reason: '' } });
    });

    it.each(ENDPOINTS)('3. %s on a pending_id with no durable messages ⇒ 404', async (_name, method, path, body) => {
      const res = await call(t.baseUrl, method, path(randomUUID()), alice, body);
      expect(res.status).toBe(404);
      expect(res.text).toBe(NOT_FOUND_TEXT);
    });

    it.each([
      ['an unknown option id (N8)', { answers: [{ question_id: 'db', selected_options: ['oracle'] }, { question_id: 'q2' }] }, /selected_options/],
      ['rejected:true with answers (N8a)', { rejected: true, answers: ANSWERS }, /answers|rejected/],
      ['custom_text over 2000 runes (N8b)', { answers: [{ question_id: 'db', custom_text: 'é'.repeat(2001) }, { question_id: 'q2' }] }, /custom_text/],
      ['reject_reason over 2000 runes (N8b)', { rejected: true, reject_reason: '😀'.repeat(2001) }, /reject_reason/],
    ])('4. the new validation rules reject %s', async (_name, body, field) => {
      const { fixture, pendingId } = await bundleOf();
      const before = await sessionSnapshot(fixture.sessionId);
      const res = await respond(pendingId, alice, body);
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toMatch(field);
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
    });

    it('5. an L16 bundle (a message without question_id) is rejected before the claim: 400, not 500, nothing written', async () => {
      const { fixture, pendingId } = await bundleOf();
      await t.db.query(
        `UPDATE task_session_messages SET metadata = metadata - 'question_id' WHERE metadata->>'pending_id' = $1 AND metadata->>'question_id' = 'db'`,
        [pendingId],
      );
      const before = await sessionSnapshot(fixture.sessionId);
      for (const body of [{ answers: ANSWERS }, { rejected: true }]) {
        const res = await respond(pendingId, alice, body);
        expect(res.status).toBe(400);
        expect((res.body as { error: string }).error).toMatch(/question_id/);
      }
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
    });

    it('6. GET /:id/wait on a pending_id with no durable messages ⇒ 404 at once, not 504', async () => {
      const started = Date.now();
      const res = await call(t.baseUrl, 'get', `/api/v1/clarification/${randomUUID()}/wait`, alice);
      expect(res.status).toBe(404);
      expect(res.text).toBe(NOT_FOUND_TEXT);
      expect(Date.now() - started).toBeLessThan(WAIT_TIMEOUT_MS);
    });

    it('not on the list, so preserved: a genuinely inactive (superseded) bundle ⇒ 409 with the upstream message', async () => {
      const { fixture, pendingId } = await bundleOf();
      await call(t.baseUrl, 'post', `/api/v1/sessions/${fixture.sessionId}/turns`, alice).then((res) => expect(res.status).toBe(201));
      const res = await respond(pendingId, alice, { answers: ANSWERS });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(NOT_ACTIVE);
    });
  });
});
