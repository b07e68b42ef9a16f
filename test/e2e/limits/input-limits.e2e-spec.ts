/**
 * One set of limits (libs/common INPUT_LIMITS) applied by the
 * domain's creation rules, so the in-session MCP ask refuses what REST refuses — it once stored a
 * 900 KB context that REST caps at 20,000 characters.
 */
import request from 'supertest';
import { INPUT_LIMITS } from '#common';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, type SessionFixture } from '../../support/fixtures.js';
import { connectMcp, rawToolCall } from '../../support/mcp.js';

const ASK = 'ask_user_question_kandev';
const options = [{ label: 'a' }, { label: 'b' }];

describe('one set of input limits on every surface', () => {
  let t: TestApp;

  const rowsOf = async (sessionId: string) =>
    (await t.db.query<{ context: string }>(`SELECT metadata->>'context' AS context FROM task_session_messages WHERE task_session_id = $1`, [sessionId])).rows;

  /** The outcome of one blocking ask on /mcp/session (askTimeoutMs is short: an accepted ask returns at once). */
  async function mcpAsk(session: SessionFixture, args: Record<string, unknown>) {
    const mcp = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: session.agentToken });
    try {
      return await mcp.call(ASK, args);
    } finally {
      await mcp.close();
    }
  }

  beforeAll(async () => {
    t = await startApp({ config: { askTimeoutMs: 50 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('the in-session ask refuses the 900 KB context of the probe, writing nothing', async () => {
    const session = await createRunningSession(t);
    const res = await rawToolCall(t.baseUrl, '/mcp/session', session.agentToken, ASK, { questions: [{ prompt: 'p', options }], context: 'c'.repeat(900_000) });
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toBe('body.params.arguments.context is longer than 100000 characters');
    expect(await rowsOf(session.sessionId)).toEqual([]);
  });

  it(`a context of ${INPUT_LIMITS.context + 1} characters is refused by the ask tool as by REST; ${INPUT_LIMITS.context} is stored`, async () => {
    const session = await createRunningSession(t);
    const tooLong = 'c'.repeat(INPUT_LIMITS.context + 1);
    const refused = await mcpAsk(session, { questions: [{ prompt: 'p', options }], context: tooLong });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/context/);
    expect(refused.text).toMatch(/20000/);
    expect(await rowsOf(session.sessionId)).toEqual([]);
    const rest = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: session.sessionId, questions: [{ prompt: 'p', options }], context: tooLong });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: 'context must be shorter than or equal to 20000 characters', code: 'VALIDATION_ERROR' });
    expect(await rowsOf(session.sessionId)).toEqual([]);

    const fits = 'c'.repeat(INPUT_LIMITS.context);
    const accepted = await mcpAsk(session, { questions: [{ prompt: 'p', options }], context: fits });
    expect(accepted.text).toMatch(/stopped waiting/);
    expect(await rowsOf(session.sessionId)).toEqual([{ context: fits }]);
  });

  it.each([
    ['label', { prompt: 'p', options: [{ label: 'l'.repeat(INPUT_LIMITS.label + 1) }, { label: 'b' }] }, `questions[0].options[0].label must be at most ${INPUT_LIMITS.label} characters`],
    ['title', { title: 't'.repeat(INPUT_LIMITS.title + 1), prompt: 'p', options }, `questions[0].title must be at most ${INPUT_LIMITS.title} characters`],
    ['question id', { id: 'i'.repeat(INPUT_LIMITS.id + 1), prompt: 'p', options }, `questions[0].id must be at most ${INPUT_LIMITS.id} characters`],
    ['option id', { prompt: 'p', options: [{ option_id: 'o'.repeat(INPUT_LIMITS.id + 1), label: 'a' }, { label: 'b' }] }, `questions[0].options[0].option_id must be at most ${INPUT_LIMITS.id} characters`],
    ['description', { prompt: 'p', options: [{ label: 'a', description: 'd'.repeat(INPUT_LIMITS.description + 1) }, { label: 'b' }] }, `questions[0].options[0].description must be at most ${INPUT_LIMITS.description} characters`],
  ])('%s over its limit: the same 400 on REST and VALIDATION_ERROR on the ask tool, nothing written', async (_label, question, message) => {
    const session = await createRunningSession(t);
    const rest = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: session.sessionId, questions: [question] });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: message, code: 'VALIDATION_ERROR' });
    const mcp = await mcpAsk(session, { questions: [question] });
    expect(mcp.isError).toBe(true);
    expect(JSON.parse(mcp.text)).toEqual({ code: 'VALIDATION_ERROR', message });
    expect(await rowsOf(session.sessionId)).toEqual([]);
  });

  it('REST ids, names, titles and URLs use the same limits', async () => {
    const session = await createRunningSession(t);
    for (const [path, body, error] of [
      ['/api/v1/workspaces', { name: 'n'.repeat(INPUT_LIMITS.name + 1) }, `name must be shorter than or equal to ${INPUT_LIMITS.name} characters`],
      ['/api/v1/tasks', { title: 't'.repeat(INPUT_LIMITS.title + 1) }, `title must be shorter than or equal to ${INPUT_LIMITS.title} characters`],
      [`/api/v1/tasks/${session.taskId}/sessions`, { resume_url: `http://h.example/${'u'.repeat(INPUT_LIMITS.url)}` }, `resume_url must be shorter than or equal to ${INPUT_LIMITS.url} characters`],
      ['/api/v1/clarification/request', { session_id: 's'.repeat(INPUT_LIMITS.id + 1), questions: [{ prompt: 'p', options }] }, `session_id must be shorter than or equal to ${INPUT_LIMITS.id} characters`],
    ] as const) {
      const res = await request(t.baseUrl).post(path).send(body);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body: { error, code: 'VALIDATION_ERROR' } });
    }
  });
});
