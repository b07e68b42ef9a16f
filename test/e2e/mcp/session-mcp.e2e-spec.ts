import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { type Answer, WaiterStore } from '#clarification';
import { isTerminalSessionState, SessionState } from '#tasks';
import { BundleRepository, WinnerDelivery, type WinnerResult } from '#clarification/testing';
import { claimAndDeliver } from '../../support/claim.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';

/**
 * The in-session MCP surface `/mcp/session`: authenticated by the session's agent token in every
 * auth mode, offering only `ask_user_question_kandev`, which blocks with keep-alive progress and,
 * when the agent stops waiting (abort or askTimeoutMs), detaches the bundle without ending it.
 */

const ASK = 'ask_user_question_kandev';
const CHALLENGE = 'Bearer realm="parley"';

const ANSWERS: Answer[] = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'not today' },
];

/** What the agent gets for ANSWERS: the reference's frozen shape (see mcp-ask-result.e2e-spec.ts). */
const ASK_RESULT = { db: { selected_option: 'sqlite' }, q2: { selected_option: 'q2_opt2', custom_text: 'not today' } };

interface SeenResponse {
  status: number;
  wwwAuthenticate: string | null;
  body: string;
}

/** An MCP SDK client on /mcp/session; `seen` records every HTTP response the transport got. */
function sessionClient(t: TestApp, bearer: string | undefined) {
  const seen: SeenResponse[] = [];
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/session`), {
    requestInit: bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      const contentType = response.headers.get('content-type') ?? '';
      seen.push({
        status: response.status,
        wwwAuthenticate: response.headers.get('www-authenticate'),
        body: contentType.includes('text/event-stream') ? '' : await response.clone().text(),
      });
      return response;
    },
  });
  return { client, transport, seen };
}

async function connected(t: TestApp, agentToken: string): Promise<Client> {
  const { client, transport } = sessionClient(t, agentToken);
  await client.connect(transport);
  return client;
}

/** The `{code, message}` a tool error carries (fails the test for anything else). */
function toolError(result: CallToolResult): { code: string; message: string } {
  expect(result.isError).toBe(true);
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  if (content?.type !== 'text') throw new Error(`expected a text tool error, got ${JSON.stringify(result)}`);
  return JSON.parse(content.text) as { code: string; message: string };
}

async function rowsOfSession(t: TestApp, sessionId: string) {
  const { rows } = await t.db.query<{ pending_id: string; metadata: Record<string, unknown> }>(
    `SELECT metadata->>'pending_id' AS pending_id, metadata FROM task_session_messages
      WHERE task_session_id = $1 AND type = 'clarification_request' ORDER BY created_at, (metadata->>'question_index')::int`,
    [sessionId],
  );
  return rows;
}

const pendingIdOf = (t: TestApp, sessionId: string) =>
  eventually(async () => (await rowsOfSession(t, sessionId))[0]?.pending_id);

async function sessionState(t: TestApp, sessionId: string, bearer?: string): Promise<string> {
  const req = request(t.baseUrl).get(`/api/v1/sessions/${sessionId}`);
  const res = await (bearer ? req.set('authorization', `Bearer ${bearer}`) : req).expect(200);
  return res.body.state as string;
}

/** Claims the bundle as answered and delivers it; returns how the winner delivered it. */
async function answer(t: TestApp, pendingId: string): Promise<WinnerResult> {
  const won = await claimAndDeliver(t, pendingId, { answers: ANSWERS });
  if (!won) throw new Error(`the claim of ${pendingId} was lost`);
  return won;
}

describe('/mcp/session (in-session MCP surface)', () => {
  describe.each(['disabled', 'enabled'] as const)('authentication with auth %s', (authMode) => {
    let t: TestApp;
    let fixture: SessionFixture;
    let pat: string;
    const admin = authMode === 'enabled' ? TEST_ADMIN_TOKEN : undefined;

    beforeAll(async () => {
      t = await startApp({ config: { authMode } });
      fixture = await createRunningSession(t, { bearer: admin });
      const auth = (req: request.Test) => req.set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      const user = await auth(request(t.baseUrl).post('/api/v1/admin/users')).send({ name: 'pat holder' }).expect(201);
      pat = (await auth(request(t.baseUrl).post(`/api/v1/admin/users/${user.body.id}/tokens`)).send({ name: 'pat' }).expect(201)).body.token;
      expect(pat).toMatch(/^parley_pat_/);
    });
    afterAll(async () => {
      await t.close();
    });

    it.each([
      { label: 'no credential', bearer: () => undefined },
      { label: 'an unknown agent token', bearer: () => `parley_sat_${'x'.repeat(43)}` },
      { label: 'a personal access token', bearer: () => pat },
      { label: 'the admin token', bearer: () => TEST_ADMIN_TOKEN },
      { label: 'garbage', bearer: () => 'not-a-token' },
    ])('$label ⇒ 401 with a Bearer challenge, nothing served', async ({ bearer }) => {
      const { client, transport, seen } = sessionClient(t, bearer());
      const error = await client.connect(transport).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
      expect(seen).toEqual([{ status: 401, wwwAuthenticate: CHALLENGE, body: JSON.stringify({ error: 'a session agent token is required', code: 'UNAUTHENTICATED' }) }]);
      await client.close();
    });

    it('the session agent token is accepted and lists exactly the ask tool', async () => {
      const client = await connected(t, fixture.agentToken);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual([ASK]);
        const schema = tools[0].inputSchema as { properties: Record<string, unknown>; required?: string[] };
        expect(Object.keys(schema.properties).sort()).toEqual(['action', 'context', 'expires_in_seconds', 'questions', 'routing']); // expires_in_seconds: the question's deadline; routing: optional, who may answer; action: optional, what an answer authorizes
        expect(schema.required).toEqual(['questions']);
      } finally {
        await client.close();
      }
    });

    it.each(Object.values(SessionState))('a %s session’s agent token authenticates only while the session has not ended', async (state) => {
      const own = await createRunningSession(t, { bearer: admin });
      await t.db.query(`UPDATE task_sessions SET state = $1 WHERE id = $2`, [state, own.sessionId]);
      const { client, transport, seen } = sessionClient(t, own.agentToken);
      const error = await client.connect(transport).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      await client.close();
      if (!isTerminalSessionState(state)) {
        expect(error).toBeUndefined();
        return;
      }
      // Exactly what an unknown or revoked token gets: nothing served, nothing written.
      expect((error as StreamableHTTPError).code).toBe(401);
      expect(seen).toEqual([{ status: 401, wwwAuthenticate: CHALLENGE, body: JSON.stringify({ error: 'a session agent token is required', code: 'UNAUTHENTICATED' }) }]);
      expect(await rowsOfSession(t, own.sessionId)).toEqual([]);
    });

    it('ending the session ends the agent’s open ask; from then on its token is refused like a revoked one, on every route that takes it', async () => {
      const own = await createRunningSession(t, { bearer: admin });
      const client = await connected(t, own.agentToken);
      try {
        const asking = client.callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS } }) as Promise<CallToolResult>;
        const pendingId = await pendingIdOf(t, own.sessionId);
        await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
        const asAgent = (req: request.Test) => req.set('authorization', `Bearer ${own.agentToken}`);
        if (authMode === 'enabled') await asAgent(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(200);

        const ending = request(t.baseUrl).patch(`/api/v1/sessions/${own.sessionId}`);
        await (admin ? ending.set('authorization', `Bearer ${admin}`) : ending).send({ state: 'COMPLETED' }).expect(200);
        expect(toolError(await asking)).toEqual({ code: 'WAIT_ENDED', message: 'clarification wait ended: the question expired' });
        await expect(client.listTools()).rejects.toMatchObject({ code: 401 });
        if (authMode === 'enabled') {
          const revoked = { error: 'token is invalid or revoked', code: 'UNAUTHENTICATED' };
          await asAgent(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(401, revoked);
          await asAgent(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`)).expect(401, revoked);
        }
      } finally {
        await client.close();
      }
    });

    it('asking works with the agent token alone (no other credential), in this auth mode', async () => {
      const own = await createRunningSession(t, { bearer: admin });
      const client = await connected(t, own.agentToken);
      try {
        const call = client.callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS } });
        const pendingId = await pendingIdOf(t, own.sessionId);
        await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
        const { delivery } = await answer(t, pendingId);
        expect(delivery).toBe(WinnerDelivery.LiveWaiter);
        const result = await call;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(ASK_RESULT);
      } finally {
        await client.close();
      }
    });
  });

  describe('asking', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ config: { askProgressIntervalMs: 50 } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('blocks with progress notifications every askProgressIntervalMs and returns the delivered response', async () => {
      const fixture = await createRunningSession(t);
      const client = await connected(t, fixture.agentToken);
      try {
        const progress: { progress: number; message?: string }[] = [];
        let settled = false;
        const call = client
          .callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS, context: 'why' } }, undefined, {
            onprogress: (p) => progress.push({ progress: p.progress, message: p.message }),
            resetTimeoutOnProgress: true,
            timeout: 20_000,
          })
          .finally(() => (settled = true));
        const pendingId = await pendingIdOf(t, fixture.sessionId);
        await eventually(() => (progress.length >= 3 ? true : undefined));
        expect(settled).toBe(false);
        expect(progress.slice(0, 3)).toEqual([1, 2, 3].map((n) => ({ progress: n, message: `waiting for an answer to ${pendingId}` })));
        expect(await sessionState(t, fixture.sessionId)).toBe('WAITING_FOR_INPUT');
        const rows = await rowsOfSession(t, fixture.sessionId);
        expect(rows.map((row) => [row.metadata.question_id, row.metadata.status, row.metadata.context])).toEqual([
          ['db', 'pending', 'why'],
          ['q2', 'pending', 'why'],
        ]);

        const { delivery } = await answer(t, pendingId);
        expect(delivery).toBe(WinnerDelivery.LiveWaiter);
        const result = await call;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(ASK_RESULT);
        expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual(ASK_RESULT);
        expect(await sessionState(t, fixture.sessionId)).toBe('RUNNING');
      } finally {
        await client.close();
      }
    });

    it('aborting the call detaches the bundle: agent_disconnected, still active, still answerable (resumed)', async () => {
      const fixture = await createRunningSession(t);
      const client = await connected(t, fixture.agentToken);
      try {
        const controller = new AbortController();
        const call = client.callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS } }, undefined, {
          signal: controller.signal,
          timeout: 20_000,
        });
        const pendingId = await pendingIdOf(t, fixture.sessionId);
        await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
        controller.abort('user pressed escape');
        await expect(call).rejects.toThrow();

        const rows = await eventually(async () => {
          const current = await rowsOfSession(t, fixture.sessionId);
          return current.every((row) => row.metadata.agent_disconnected === true) ? current : undefined;
        });
        expect(rows.map((row) => [row.pending_id, row.metadata.status, row.metadata.agent_disconnected])).toEqual([
          [pendingId, 'pending', true],
          [pendingId, 'pending', true],
        ]);
        expect(t.app.get(WaiterStore).waiterCount(pendingId)).toBe(0);
        expect(await t.app.get(BundleRepository).isBundleActive(pendingId)).toBe(true);

        // Still answerable: nobody waits any more, so the answer resumes the agent (queued here).
        const { delivery } = await answer(t, pendingId);
        expect(delivery).toBe(WinnerDelivery.Resumed);
        const { rows: queued } = await t.db.query(
          `SELECT type FROM task_session_messages WHERE task_session_id = $1 AND type = 'resume_prompt'`,
          [fixture.sessionId],
        );
        expect(queued).toEqual([{ type: 'resume_prompt' }]);
        // The same client keeps working after the abort.
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([ASK]);
      } finally {
        await client.close();
      }
    });

    it("one agent's cancellation never aborts another session's call with the same JSON-RPC id", async () => {
      const a = await createRunningSession(t);
      const b = await createRunningSession(t);
      const clientA = await connected(t, a.agentToken);
      const clientB = await connected(t, b.agentToken);
      try {
        // Both fresh clients number their requests alike: initialize, then this call.
        const callA = clientA.callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS } }, undefined, { timeout: 20_000 });
        const pendingA = await pendingIdOf(t, a.sessionId);
        const controller = new AbortController();
        const callB = clientB.callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS } }, undefined, {
          signal: controller.signal,
          timeout: 20_000,
        });
        const pendingB = await pendingIdOf(t, b.sessionId);
        await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingB) === 1 ? true : undefined));
        controller.abort();
        await expect(callB).rejects.toThrow();
        await eventually(async () => ((await rowsOfSession(t, b.sessionId))[0]?.metadata.agent_disconnected === true ? true : undefined));

        expect(t.app.get(WaiterStore).waiterCount(pendingA)).toBe(1);
        expect((await rowsOfSession(t, a.sessionId)).map((row) => row.metadata.agent_disconnected)).toEqual([undefined, undefined]);
        const { delivery } = await answer(t, pendingA);
        expect(delivery).toBe(WinnerDelivery.LiveWaiter);
        expect((await callA).structuredContent).toEqual(ASK_RESULT);
      } finally {
        await clientA.close();
        await clientB.close();
      }
    });

    it.each([
      {
        label: 'prompt missing',
        args: () => ({ questions: [{ options: [{ label: 'a' }, { label: 'b' }] }] }),
        message: 'questions[0].prompt is required',
      },
      { label: 'questions missing', args: () => ({ context: 'why' }), message: 'questions is required' },
      { label: 'questions not an array', args: () => ({ questions: 'Which?' }), message: 'questions must be an array' },
      { label: 'context not a string', args: () => ({ questions: TWO_QUESTIONS, context: 5 }), message: 'context must be a string' },
      {
        label: 'an option label of the wrong type',
        args: () => ({ questions: [{ prompt: 'x', options: [{ label: 'a' }, { label: 7 }] }] }),
        message: 'questions[0].options[1].label must be a string',
      },
      {
        label: 'unknown question key',
        args: () => ({ questions: [{ prompt: 'x', options: [{ label: 'a' }, { label: 'b' }], priority: 1 }] }),
        message: 'questions[0].priority is not an allowed field',
      },
      {
        label: 'unknown option key',
        args: () => ({ questions: [{ prompt: 'x', options: [{ label: 'a' }, { label: 'b', value: 2 }] }] }),
        message: 'questions[0].options[1].value is not an allowed field',
      },
      { label: 'unknown argument', args: () => ({ questions: TWO_QUESTIONS, urgency: 'high' }), message: 'urgency is not an allowed field' },
    ])('schema-level: $label ⇒ VALIDATION_ERROR naming the field (never the SDK\'s -32602 text), nothing written', async ({ args, message }) => {
      const fixture = await createRunningSession(t);
      const client = await connected(t, fixture.agentToken);
      try {
        const result = (await client.callTool({ name: ASK, arguments: args() }, undefined, { timeout: 5_000 })) as CallToolResult;
        expect(toolError(result)).toEqual({ code: 'VALIDATION_ERROR', message });
        expect(await rowsOfSession(t, fixture.sessionId)).toEqual([]);
        expect(await sessionState(t, fixture.sessionId)).toBe('RUNNING');
      } finally {
        await client.close();
      }
    });

    it.each([
      { label: 'no questions', questions: () => [], message: 'questions must contain 1 to 4 questions' },
      {
        label: 'five questions',
        questions: () => ['1', '2', '3', '4', '5'].map((n) => ({ prompt: `Q${n}?`, options: [{ label: 'a' }, { label: 'b' }] })),
        message: 'questions must contain 1 to 4 questions',
      },
      { label: 'blank prompt', questions: () => [{ prompt: '  ', options: [{ label: 'a' }, { label: 'b' }] }], message: 'questions[0].prompt is required' },
      { label: 'one option', questions: () => [{ prompt: 'x', options: [{ label: 'a' }] }], message: 'questions[0].options must contain 2 to 6 options' },
      {
        label: 'seven options',
        questions: () => [{ prompt: 'x', options: ['1', '2', '3', '4', '5', '6', '7'].map((label) => ({ label })) }],
        message: 'questions[0].options must contain 2 to 6 options',
      },
      { label: 'empty label', questions: () => [{ prompt: 'x', options: [{ label: 'a' }, { label: '' }] }], message: 'questions[0].options[1].label is required' },
      {
        label: 'duplicate question ids',
        questions: () => [
          { id: 'a', prompt: 'x', options: [{ label: 'a' }, { label: 'b' }] },
          { id: 'a', prompt: 'y', options: [{ label: 'a' }, { label: 'b' }] },
        ],
        message: 'questions has a duplicate id "a"',
      },
      {
        label: 'duplicate option ids',
        questions: () => [{ prompt: 'x', options: [{ label: 'a', option_id: 'o' }, { label: 'b', option_id: 'o' }] }],
        message: 'questions[0].options has a duplicate option_id "o"',
      },
      { label: 'prompt too long', questions: () => [{ prompt: 'p'.repeat(4001), options: [{ label: 'a' }, { label: 'b' }] }], message: 'questions[0].prompt must be at most 4000 characters' },
    ])('$label ⇒ tool error VALIDATION_ERROR naming the field, nothing written', async ({ questions, message }) => {
      const fixture = await createRunningSession(t);
      const client = await connected(t, fixture.agentToken);
      try {
        const result = (await client.callTool({ name: ASK, arguments: { questions: questions() } })) as CallToolResult;
        expect(toolError(result)).toEqual({ code: 'VALIDATION_ERROR', message });
        expect(await rowsOfSession(t, fixture.sessionId)).toEqual([]);
        expect(await sessionState(t, fixture.sessionId)).toBe('RUNNING');
      } finally {
        await client.close();
      }
    });

  });

  describe('askTimeoutMs', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ config: { askTimeoutMs: 300 } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('a wait that outlives askTimeoutMs ends in a tool error and detaches the bundle, which stays answerable', async () => {
      const fixture = await createRunningSession(t);
      const client = await connected(t, fixture.agentToken);
      try {
        const started = Date.now();
        const result = (await client.callTool({ name: ASK, arguments: { questions: TWO_QUESTIONS } })) as CallToolResult;
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        const rows = await rowsOfSession(t, fixture.sessionId);
        const pendingId = rows[0].pending_id;
        expect(toolError(result)).toEqual({
          code: 'WAIT_ENDED',
          message: `stopped waiting for an answer (timed_out); the question stays pending as ${pendingId}`,
        });
        expect(rows.map((row) => [row.pending_id, row.metadata.status, row.metadata.agent_disconnected])).toEqual([
          [pendingId, 'pending', true],
          [pendingId, 'pending', true],
        ]);
        expect(await t.app.get(BundleRepository).isBundleActive(pendingId)).toBe(true);
        expect(await sessionState(t, fixture.sessionId)).toBe('WAITING_FOR_INPUT');
        const { delivery } = await answer(t, pendingId);
        expect(delivery).toBe(WinnerDelivery.Resumed);
        expect(await sessionState(t, fixture.sessionId)).toBe('RUNNING');
      } finally {
        await client.close();
      }
    });
  });
});
