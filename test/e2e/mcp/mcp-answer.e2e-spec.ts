/**
 * answer_question_kandev, list_tasks_kandev, surface placement and authentication of the external
 * MCP surface (/mcp), rules N1–N9, R1/R2/R2b/R2c, S1–S3, T1/T2, A1–A5 through MCP — always with
 * the MCP SDK client against the real server and PostgreSQL.
 */
import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { browserHeaders, createUser, freshBundle, signIn, TWO_QUESTIONS } from '../../support/fixtures.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';

const LIST = 'list_pending_questions_kandev';
const ANSWER = 'answer_question_kandev';
const LIST_TASKS = 'list_tasks_kandev';
const ASK = 'ask_user_question_kandev';

/** TWO_QUESTIONS as the service stores them: `db` (options pg, sqlite) and `q2` (options q2_opt1, q2_opt2). */
const DB_PG = { question_id: 'db', selected_options: ['pg'], custom_text: '' };

async function ask(t: TestApp, sessionId: string, bearer?: string, questions: unknown = TWO_QUESTIONS): Promise<string> {
  const req = request(t.baseUrl).post('/api/v1/clarification/request');
  if (bearer) req.set('authorization', `Bearer ${bearer}`);
  const response = await req.send({ session_id: sessionId, questions }).expect(200);
  return response.body.pending_id as string;
}

/** A fresh running session with one TWO_QUESTIONS bundle on it. */
/** The bundle's rows, verbatim (metadata text and updated_at at microsecond precision): "nothing written" is checkable. */
async function rowsText(t: TestApp, pendingId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ text: string }>(
    `SELECT metadata::text || '|' || updated_at::text AS text FROM task_session_messages
      WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request' ORDER BY id`,
    [pendingId],
  );
  return rows.map((row) => row.text);
}

async function rowsMetadata(t: TestApp, pendingId: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await t.db.query<{ metadata: Record<string, unknown> }>(
    `SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
      ORDER BY (metadata->>'question_index')::int`,
    [pendingId],
  );
  return rows.map((row) => row.metadata);
}

/** Resumes of a bundle: resume prompts queued on its session (one bundle per session here) and successor turns reserved for it. */
async function resumes(t: TestApp, pendingId: string): Promise<{ prompts: number; turns: number }> {
  const prompts = await t.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM task_session_messages WHERE type = 'resume_prompt'
        AND task_session_id IN (SELECT task_session_id FROM task_session_messages WHERE metadata->>'pending_id' = $1)`,
    [pendingId],
  );
  const turns = await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM task_session_turns WHERE metadata->>'resume_of' = $1`, [
    pendingId,
  ]);
  return { prompts: Number(prompts.rows[0]?.n), turns: Number(turns.rows[0]?.n) };
}

const names = (tools: { tools: Array<{ name: string }> }) => tools.tools.map((tool) => tool.name).sort();

/** Calls a tool that may not exist on the surface: an SDK-level rejection and an isError result both count as refused. */
async function refused(mcp: McpConnection, name: string, args: Record<string, unknown>): Promise<boolean> {
  try {
    return (await mcp.call(name, args)).isError;
  } catch {
    return true;
  }
}

describe('answer_question_kandev, list_tasks_kandev and the /mcp surface (auth disabled)', () => {
  let t: TestApp;
  let mcp: McpConnection;

  beforeAll(async () => {
    t = await startApp();
    mcp = await connectMcp(t.baseUrl);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  describe('S1–S3 / N9: surface placement and argument schema', () => {
    it('S1/S3: /mcp lists exactly the external tools (the three, and the question app\'s two) and never ask_user_question_kandev', async () => {
      const tools = await mcp.client.listTools();
      expect(names(tools)).toEqual([ANSWER, LIST_TASKS, LIST, 'show_question', 'answer_question_in_app'].sort());
      expect(names(tools)).not.toContain(ASK);
      expect(await refused(mcp, ASK, { questions: TWO_QUESTIONS })).toBe(true);
    });

    it('S2: /mcp/session (agent token) offers ask_user_question_kandev and none of the external tools, and refuses to run them', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      const session = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: fixture.agentToken });
      try {
        const tools = names(await session.client.listTools());
        expect(tools).toContain(ASK);
        for (const external of [LIST, ANSWER, LIST_TASKS]) expect(tools).not.toContain(external);
        expect(await refused(session, ANSWER, { pending_id: pendingId, rejected: true })).toBe(true);
        expect(await refused(session, LIST, {})).toBe(true);
        // Nothing was answered through the in-session surface.
        expect((await rowsMetadata(t, pendingId)).map((row) => row.status)).toEqual(['pending', 'pending']);
      } finally {
        await session.close();
      }
    });

    it('N9/N1: pending_id is the only required argument; answers, rejected and reason are declared', async () => {
      const tools = (await mcp.client.listTools()).tools;
      const answer = tools.find((tool) => tool.name === ANSWER);
      expect(answer?.inputSchema.required).toEqual(['pending_id']);
      expect(Object.keys(answer?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['pending_id', 'answers', 'rejected', 'reason']));
      const answers = (answer?.inputSchema.properties as Record<string, { type?: string; items?: { type?: string; properties?: object } }>)
        .answers;
      expect(answers?.type).toBe('array');
      expect(answers?.items?.type).toBe('object');
      expect(Object.keys(answers?.items?.properties ?? {})).toEqual(expect.arrayContaining(['question_id', 'selected_options', 'custom_text']));
      const list = tools.find((tool) => tool.name === LIST);
      expect(list?.inputSchema.required ?? []).toEqual([]);
      expect(Object.keys(list?.inputSchema.properties ?? {}).sort()).toEqual(['created_since', 'cursor', 'limit', 'workspace_id']);
    });
  });

  describe('N2/N3/R1: the winner', () => {
    it('claims over MCP and gets the N3a-normalized response; rows hold it; exactly one resume', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      const outcome = await mcp.call(ANSWER, {
        pending_id: pendingId,
        answers: [
          { question_id: 'q2', custom_text: '  tomorrow morning \n' },
          { question_id: 'db', selected_options: ['sqlite', 'pg', 'sqlite'] },
        ],
      });
      expect(outcome.isError).toBe(false);
      const expected = {
        claimed: true,
        status: 'answered',
        receipt: expect.any(String),
        response: {
          answers: [
            { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: '' },
            { question_id: 'q2', selected_options: [], custom_text: 'tomorrow morning' },
          ],
          rejected: false,
          reject_reason: '',
        },
      };
      // Raw JSON: every key present (R12), structured content identical.
      expect(JSON.parse(outcome.text)).toEqual(expected);
      expect(outcome.structured).toEqual(expected);

      const rows = await rowsMetadata(t, pendingId);
      expect(rows.map((row) => row.status)).toEqual(['answered', 'answered']);
      expect(rows.map((row) => row.response)).toEqual(expected.response.answers);
      expect(rows.map((row) => row.response_delivery_pending)).toEqual([undefined, undefined]);
      expect(await resumes(t, pendingId)).toEqual({ prompts: 1, turns: 1 });
      const session = await request(t.baseUrl).get(`/api/v1/sessions/${fixture.sessionId}`).expect(200);
      expect(session.body.state).toBe('RUNNING');
      expect((await mcp.call(LIST, {})).text).not.toContain(pendingId);
    });

    it('N1: a rejection with a reason is claimed as rejected and reports the reason', async () => {
      const { pendingId } = await freshBundle(t);
      const outcome = await mcp.call(ANSWER, { pending_id: pendingId, rejected: true, reason: '  not my call  ' });
      expect(outcome.isError).toBe(false);
      expect(JSON.parse(outcome.text)).toEqual({
        claimed: true,
        status: 'rejected',
        receipt: expect.any(String),
        response: { answers: [], rejected: true, reject_reason: 'not my call' },
      });
      const rows = await rowsMetadata(t, pendingId);
      expect(rows.map((row) => row.status)).toEqual(['rejected', 'rejected']);
      expect(rows.map((row) => 'response' in row)).toEqual([false, false]);
      // R9: a rejection with no live waiter does not resume the agent.
      expect(await resumes(t, pendingId)).toEqual({ prompts: 0, turns: 0 });
    });

    it('N7: an entry with neither selected_options nor custom_text is accepted', async () => {
      const { pendingId } = await freshBundle(t);
      const outcome = await mcp.call(ANSWER, { pending_id: pendingId, answers: [{ question_id: 'db' }, { question_id: 'q2' }] });
      expect(outcome.structured).toEqual({
        claimed: true,
        status: 'answered',
        receipt: expect.any(String),
        response: {
          answers: [
            { question_id: 'db', selected_options: [], custom_text: '' },
            { question_id: 'q2', selected_options: [], custom_text: '' },
          ],
          rejected: false,
          reject_reason: '',
        },
      });
    });
  });

  describe('N4/R2/R2b: the loser is told what the winner decided', () => {
    it('a second answer (MCP, then REST) gets claimed:false with the winner’s status and answers, and writes nothing', async () => {
      const { pendingId } = await freshBundle(t);
      const winner = await mcp.call(ANSWER, {
        pending_id: pendingId,
        answers: [DB_PG, { question_id: 'q2', custom_text: 'winner' }],
      });
      expect(winner.structured).toMatchObject({ claimed: true });
      const winnerResponse = (JSON.parse(winner.text) as { response: unknown }).response;
      const before = await rowsText(t, pendingId);

      const loser = await mcp.call(ANSWER, {
        pending_id: pendingId,
        answers: [{ question_id: 'db', selected_options: ['sqlite'] }, { question_id: 'q2', custom_text: 'loser' }],
      });
      expect(loser.isError).toBe(false);
      expect(JSON.parse(loser.text)).toEqual({ claimed: false, status: 'answered', receipt: expect.any(String), response: winnerResponse });

      const rejectingLoser = await mcp.call(ANSWER, { pending_id: pendingId, rejected: true, reason: 'too late' });
      expect(JSON.parse(rejectingLoser.text)).toEqual({ claimed: false, status: 'answered', receipt: expect.any(String), response: winnerResponse });

      const restLoser = await request(t.baseUrl)
        .post(`/api/v1/clarification/${pendingId}/respond`)
        .send({ answers: [{ question_id: 'db', selected_options: ['sqlite'] }, { question_id: 'q2' }] })
        .expect(200);
      expect(restLoser.body).toEqual({ success: true, claimed: false, status: 'answered', receipt: expect.any(String), response: winnerResponse });
      // The very same receipt for every loser, on either surface.
      expect(restLoser.body.receipt).toBe(JSON.parse(rejectingLoser.text).receipt);

      expect(await rowsText(t, pendingId)).toEqual(before);
      expect(await resumes(t, pendingId)).toEqual({ prompts: 1, turns: 1 });
    });

    it('R2b: a loser to a rejection gets status rejected, answers [] and reject_reason ""', async () => {
      const { pendingId } = await freshBundle(t);
      await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ rejected: true, reject_reason: 'nope' }).expect(200);
      const loser = await mcp.call(ANSWER, { pending_id: pendingId, answers: [DB_PG, { question_id: 'q2' }] });
      expect(loser.isError).toBe(false);
      expect(JSON.parse(loser.text)).toEqual({ claimed: false, status: 'rejected', receipt: expect.any(String), response: { answers: [], rejected: true, reject_reason: '' } });
    });

    it('R2c: a malformed submission against a resolved bundle is a VALIDATION_ERROR, not the winner’s payload', async () => {
      const { pendingId } = await freshBundle(t);
      await mcp.call(ANSWER, { pending_id: pendingId, rejected: true });
      const error = await mcp.callError(ANSWER, { pending_id: pendingId, answers: [{ question_id: 'db', selected_options: ['mysql'] }, { question_id: 'q2' }] });
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.text).not.toContain('claimed');
    });
  });

  describe('N4a: an inactive bundle with no winner is a CONFLICT error (not success, not NOT_FOUND)', () => {
    const attempt = async (pendingId: string) => {
      const before = await rowsText(t, pendingId);
      for (const args of [{ answers: [DB_PG, { question_id: 'q2' }] }, { rejected: true }]) {
        const error = await mcp.callError(ANSWER, { pending_id: pendingId, ...args });
        expect(error.code).toBe('CONFLICT');
        expect(error.message).toMatch(/no longer active/);
      }
      expect(await rowsText(t, pendingId)).toEqual(before);
      expect(await resumes(t, pendingId)).toEqual({ prompts: 0, turns: 0 });
    };

    it('superseded (a newer turn started; rows still pending)', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      await request(t.baseUrl).post(`/api/v1/sessions/${fixture.sessionId}/turns`).expect(201);
      expect((await rowsMetadata(t, pendingId)).map((row) => row.status)).toEqual(['pending', 'pending']);
      await attempt(pendingId);
    });

    it('terminal session (rows still pending)', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      await t.db.query(`UPDATE task_sessions SET state = 'CANCELLED' WHERE id = $1`, [fixture.sessionId]);
      await attempt(pendingId);
    });

    it('expired and cancelled', async () => {
      const expired = await freshBundle(t);
      await request(t.baseUrl).patch(`/api/v1/sessions/${expired.fixture.sessionId}`).send({ state: 'COMPLETED' }).expect(200);
      await attempt(expired.pendingId);
      const cancelled = await freshBundle(t);
      await request(t.baseUrl).post(`/api/v1/clarification/${cancelled.pendingId}/cancel`).expect(200);
      await attempt(cancelled.pendingId);
    });
  });

  it('N5: a fabricated pending_id is NOT_FOUND (also for a rejection)', async () => {
    for (const args of [{ rejected: true }, { answers: [DB_PG] }]) {
      const error = await mcp.callError(ANSWER, { pending_id: '00000000-0000-4000-8000-000000000000', ...args });
      expect(error).toEqual({ code: 'NOT_FOUND', message: 'clarification request not found', text: expect.any(String) });
    }
  });

  describe('N6/N8/N8a/N8b: validation before the claim (each rule alone ⇒ VALIDATION_ERROR naming the field, nothing written)', () => {
    const RUNES_2000 = '😀'.repeat(2000);
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['N6.1 fewer entries than questions', { answers: [DB_PG] }, /answers/],
      ['N6.1 more entries than questions', { answers: [DB_PG, { question_id: 'q2' }, { question_id: 'q3' }] }, /question_id|answers/],
      ['N6.2 an empty question_id', { answers: [DB_PG, { question_id: '' }] }, /question_id/],
      ['N6.2 an absent question_id (N9: only pending_id is required)', { answers: [DB_PG, { custom_text: 'x' }] }, /answers\[1\]\.question_id/],
      ['an unknown key in an answer entry (as on REST)', { answers: [DB_PG, { question_id: 'q2', note: 'x' }] }, /answers\[1\]\.note/],
      ['N6.3 a question_id not in the bundle', { answers: [DB_PG, { question_id: 'nope' }] }, /question_id/],
      ['N6.4 a repeated question_id', { answers: [DB_PG, DB_PG] }, /question_id/],
      ['N8 an unknown option id', { answers: [{ question_id: 'db', selected_options: ['mysql'] }, { question_id: 'q2' }] }, /selected_options/],
      ['N8 an option id of another question', { answers: [{ question_id: 'db', selected_options: ['q2_opt1'] }, { question_id: 'q2' }] }, /selected_options/],
      ['N8a rejected with answers', { rejected: true, answers: [DB_PG, { question_id: 'q2' }] }, /answers|rejected/],
      ['N8a rejected:false with an empty answers array', { rejected: false, answers: [] }, /answers/],
      ['N8a neither answers nor rejected', {}, /answers/],
      ['N8b custom_text of 2001 runes', { answers: [DB_PG, { question_id: 'q2', custom_text: `${RUNES_2000}😀` }] }, /custom_text/],
      ['N8b/N3a custom_text of 2000 runes plus a trailing space', { answers: [DB_PG, { question_id: 'q2', custom_text: `${RUNES_2000} ` }] }, /custom_text/],
      ['N8b reason of 2001 runes', { rejected: true, reason: `${RUNES_2000}😀` }, /reason/],
    ];

    it.each(cases)('%s', async (_name, args, field) => {
      const { pendingId } = await freshBundle(t);
      const before = await rowsText(t, pendingId);
      const error = await mcp.callError(ANSWER, { pending_id: pendingId, ...args });
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.message).toMatch(field);
      expect(await rowsText(t, pendingId)).toEqual(before);
      // The bundle is untouched and still answerable.
      expect((await mcp.call(LIST, {})).text).toContain(pendingId);
      expect((await mcp.call(ANSWER, { pending_id: pendingId, rejected: true })).structured).toMatchObject({ claimed: true });
    });

    it('N8 accepts several valid option ids for one question; N8b accepts exactly 2000 runes (multi-byte) in custom_text and reason', async () => {
      const answered = await freshBundle(t);
      const accents = 'é'.repeat(2000);
      const outcome = await mcp.call(ANSWER, {
        pending_id: answered.pendingId,
        answers: [
          { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: RUNES_2000 },
          { question_id: 'q2', custom_text: accents },
        ],
      });
      expect(outcome.isError).toBe(false);
      expect(outcome.structured).toMatchObject({
        claimed: true,
        response: {
          answers: [
            { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: RUNES_2000 },
            { question_id: 'q2', selected_options: [], custom_text: accents },
          ],
        },
      });
      const rejected = await freshBundle(t);
      const rejection = await mcp.call(ANSWER, { pending_id: rejected.pendingId, rejected: true, reason: RUNES_2000 });
      expect(rejection.structured).toMatchObject({ claimed: true, status: 'rejected', receipt: expect.any(String), response: { reject_reason: RUNES_2000 } });
    });
  });

  describe('T1/T2: list_tasks_kandev carries task_pending_action and primary_session_pending_action', () => {
    it('"clarification" while blocked, JSON null (key present) otherwise, and null again once answered', async () => {
      const workspace = await request(t.baseUrl).post('/api/v1/workspaces').send({ name: 'T1' }).expect(201);
      const workspaceId = workspace.body.id as string;
      const idle = await request(t.baseUrl).post('/api/v1/tasks').send({ title: 'idle', workspace_id: workspaceId }).expect(201);
      const blocked = await request(t.baseUrl).post('/api/v1/tasks').send({ title: 'blocked', workspace_id: workspaceId }).expect(201);
      const session = await request(t.baseUrl).post(`/api/v1/tasks/${blocked.body.id}/sessions`).send({}).expect(201);
      await request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`).send({ state: 'RUNNING' }).expect(200);
      await request(t.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`).expect(201);

      type Listed = { tasks: Array<Record<string, unknown>> };
      const tasksNow = async () => {
        const outcome = await mcp.call(LIST_TASKS, { workspace_id: workspaceId });
        expect(outcome.isError).toBe(false);
        const raw = JSON.parse(outcome.text) as Listed;
        expect(outcome.structured).toEqual(raw);
        return new Map(raw.tasks.map((task) => [task.id as string, task]));
      };

      let tasks = await tasksNow();
      for (const task of tasks.values()) {
        expect(Object.keys(task)).toEqual(expect.arrayContaining(['task_pending_action', 'primary_session_pending_action']));
        expect(task.task_pending_action).toBeNull();
        expect(task.primary_session_pending_action).toBeNull();
      }

      const pendingId = await ask(t, session.body.id as string);
      tasks = await tasksNow();
      expect(tasks.get(blocked.body.id)).toMatchObject({ task_pending_action: 'clarification', primary_session_pending_action: 'clarification' });
      expect(tasks.get(idle.body.id)).toMatchObject({ task_pending_action: null, primary_session_pending_action: null });
      expect('task_pending_action' in (tasks.get(idle.body.id) ?? {})).toBe(true);
      expect('primary_session_pending_action' in (tasks.get(idle.body.id) ?? {})).toBe(true);

      await mcp.call(ANSWER, { pending_id: pendingId, answers: [DB_PG, { question_id: 'q2', custom_text: 'go' }] });
      tasks = await tasksNow();
      expect(tasks.get(blocked.body.id)).toMatchObject({ task_pending_action: null, primary_session_pending_action: null });
    });
  });
});

describe('the /mcp surface with authentication enabled', () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
  });
  afterAll(async () => {
    await t.close();
  });

  const rawPost = (headers: Record<string, string> = {}) =>
    fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });

  it('no token ⇒ HTTP 401 with WWW-Authenticate: Bearer; a bad token or a session agent token ⇒ 401 too', async () => {
    const anonymous = await rawPost();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    await anonymous.body?.cancel();

    const bad = await rawPost({ authorization: 'Bearer not-a-real-token' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    await bad.body?.cancel();

    // S2: a session's agent token authorizes only /mcp/session.
    const { fixture } = await freshBundle(t, { bearer: alice.token });
    const agent = await rawPost({ authorization: `Bearer ${fixture.agentToken}` });
    expect(agent.status).toBe(401);
    await agent.body?.cancel();

    // The SDK client surfaces the transport's 401.
    await expect(connectMcp(t.baseUrl)).rejects.toMatchObject({ code: 401 });
  });

  it('a personal access token works, and the scoped identity reaches the services (each user sees only their bundles)', async () => {
    const mine = await freshBundle(t, { bearer: alice.token });
    const theirs = await freshBundle(t, { bearer: bob.token });
    const aliceMcp = await connectMcp(t.baseUrl, { bearer: alice.token });
    const bobMcp = await connectMcp(t.baseUrl, { bearer: bob.token });
    const adminMcp = await connectMcp(t.baseUrl, { bearer: TEST_ADMIN_TOKEN });
    try {
      const listed = async (client: McpConnection) =>
        ((await client.call(LIST, { limit: 200 })).structured as { bundles: Array<{ pending_id: string }> }).bundles.map((b) => b.pending_id);
      expect(await listed(aliceMcp)).toContain(mine.pendingId);
      expect(await listed(aliceMcp)).not.toContain(theirs.pendingId);
      expect(await listed(bobMcp)).toContain(theirs.pendingId);
      expect(await listed(bobMcp)).not.toContain(mine.pendingId);
      expect(await listed(adminMcp)).toEqual(expect.arrayContaining([mine.pendingId, theirs.pendingId]));

      const tasksOf = async (client: McpConnection) =>
        ((await client.call(LIST_TASKS, {})).structured as { tasks: Array<{ id: string }> }).tasks.map((task) => task.id);
      expect(await tasksOf(aliceMcp)).toContain(mine.fixture.taskId);
      expect(await tasksOf(aliceMcp)).not.toContain(theirs.fixture.taskId);
      // Bob's own workspace filter is honoured; Alice's workspace filter is empty for him.
      expect(((await bobMcp.call(LIST, { workspace_id: mine.fixture.workspaceId })).structured as { count: number }).count).toBe(0);
    } finally {
      await aliceMcp.close();
      await bobMcp.close();
      await adminMcp.close();
    }
  });

  it('N5/A3: a foreign bundle is NOT_FOUND with text identical to a fabricated id’s, and nothing is written; its owner can answer it', async () => {
    const mine = await freshBundle(t, { bearer: alice.token });
    const bobMcp = await connectMcp(t.baseUrl, { bearer: bob.token });
    const aliceMcp = await connectMcp(t.baseUrl, { bearer: alice.token });
    try {
      const before = await rowsText(t, mine.pendingId);
      for (const args of [{ rejected: true }, { answers: [DB_PG, { question_id: 'q2' }] }, { answers: [{ question_id: 'bogus' }] }]) {
        const foreign = await bobMcp.callError(ANSWER, { pending_id: mine.pendingId, ...args });
        const fabricated = await bobMcp.callError(ANSWER, { pending_id: 'f0000000-0000-4000-8000-00000000000f', ...args });
        expect(foreign.code).toBe('NOT_FOUND');
        expect(foreign.text).toBe(fabricated.text);
        expect(foreign.text).not.toContain(mine.fixture.taskId);
        expect(foreign.text).not.toContain(mine.fixture.sessionId);
      }
      expect(await rowsText(t, mine.pendingId)).toEqual(before);
      const answered = await aliceMcp.call(ANSWER, { pending_id: mine.pendingId, answers: [DB_PG, { question_id: 'q2' }] });
      expect(answered.structured).toMatchObject({ claimed: true, status: 'answered' });
      // Once resolved, the foreign caller still learns nothing (no winner replay for him).
      const after = await bobMcp.callError(ANSWER, { pending_id: mine.pendingId, rejected: true });
      expect(after.code).toBe('NOT_FOUND');
    } finally {
      await bobMcp.close();
      await aliceMcp.close();
    }
  });

  it('the browser session cookie works on /mcp and carries the same scoped identity', async () => {
    const mine = await freshBundle(t, { bearer: alice.token });
    const theirs = await freshBundle(t, { bearer: bob.token });
    const cookieMcp = await connectMcp(t.baseUrl, { headers: browserHeaders(t, await signIn(t, alice.token)) });
    try {
      const page = (await cookieMcp.call(LIST, { limit: 200 })).structured as { bundles: Array<{ pending_id: string }> };
      const listed = page.bundles.map((bundle) => bundle.pending_id);
      expect(listed).toContain(mine.pendingId);
      expect(listed).not.toContain(theirs.pendingId);
      expect((await cookieMcp.callError(ANSWER, { pending_id: theirs.pendingId, rejected: true })).code).toBe('NOT_FOUND');
      expect((await cookieMcp.call(ANSWER, { pending_id: mine.pendingId, rejected: true })).structured).toMatchObject({ claimed: true });
    } finally {
      await cookieMcp.close();
    }
  });
});
