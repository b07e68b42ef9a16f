import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';

/**
 * ask_user_question_kandev's result is frozen ("Out of scope" of the source specification: its response envelope is
 * unchanged) as the reference returns it: kdlbs/kandev apps/backend/internal/mcp/server/handlers.go,
 * `extractQuestionAnswers` + `simplifyAnswer`, returned with `mcp.NewToolResultStructured(out,
 * MarshalIndent(out, "", "  "))`. Each case answers over REST while the agent blocks on /mcp/session.
 */

const ASK = 'ask_user_question_kandev';

interface RespondBody {
  answers?: Array<{ question_id: string; selected_options: string[]; custom_text: string }>;
  rejected?: boolean;
  reject_reason?: string;
}

async function askAndRespond(t: TestApp, questions: unknown, body: RespondBody): Promise<{ result: CallToolResult; pendingId: string }> {
  const fixture = await createRunningSession(t);
  const agent: McpConnection = await connectMcp(t.baseUrl, { path: '/mcp/session', bearer: fixture.agentToken });
  try {
    const client: Client = agent.client;
    const call = client.callTool({ name: ASK, arguments: { questions } }, undefined, { timeout: 20_000 });
    const pendingId = await eventually(async () => {
      const { rows } = await t.db.query<{ pending_id: string }>(
        `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 LIMIT 1`,
        [fixture.sessionId],
      );
      return rows[0]?.pending_id;
    });
    await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined));
    await request(t.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .send({ answers: [], rejected: false, reject_reason: '', ...body })
      .expect(200);
    return { result: (await call) as CallToolResult, pendingId };
  } finally {
    await agent.close();
  }
}

function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const [content] = result.content;
  if (content?.type !== 'text') throw new Error(`expected one text block, got ${JSON.stringify(result)}`);
  return content.text;
}

describe('ask_user_question_kandev result: the reference shape ("Out of scope")', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('an answer: keyed by question id, the first selected option (in option order) and the custom text', async () => {
    const { result } = await askAndRespond(t, TWO_QUESTIONS, {
      answers: [
        { question_id: 'db', selected_options: ['sqlite', 'pg'], custom_text: '' },
        { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'after lunch' },
      ],
    });
    expect(result.isError).toBeFalsy();
    const expected = { db: { selected_option: 'pg' }, q2: { custom_text: 'after lunch', selected_option: 'q2_opt1' } };
    expect(result.structuredContent).toEqual(expected);
    // MarshalIndent of a Go map: keys sorted, two-space indent.
    expect(textOf(result)).toBe(
      '{\n  "db": {\n    "selected_option": "pg"\n  },\n  "q2": {\n    "custom_text": "after lunch",\n    "selected_option": "q2_opt1"\n  }\n}',
    );
  });

  it('custom text alone, and an entry with neither ⇒ {answered: false}', async () => {
    const { result } = await askAndRespond(t, TWO_QUESTIONS, {
      answers: [
        { question_id: 'db', selected_options: [], custom_text: 'whatever you think' },
        { question_id: 'q2', selected_options: [], custom_text: '' },
      ],
    });
    expect(result.structuredContent).toEqual({ db: { custom_text: 'whatever you think' }, q2: { answered: false } });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('a rejection with a reason: rejected + reject_reason on top, {answered: false, rejected: true} per question', async () => {
    const { result } = await askAndRespond(t, TWO_QUESTIONS, { rejected: true, reject_reason: 'not my call' });
    expect(result.isError).toBeFalsy();
    const expected = {
      rejected: true,
      reject_reason: 'not my call',
      db: { answered: false, rejected: true },
      q2: { answered: false, rejected: true },
    };
    expect(result.structuredContent).toEqual(expected);
    expect(textOf(result)).toBe(
      '{\n  "db": {\n    "answered": false,\n    "rejected": true\n  },\n  "q2": {\n    "answered": false,\n    "rejected": true\n  },\n' +
        '  "reject_reason": "not my call",\n  "rejected": true\n}',
    );
  });

  it('a rejection without a reason carries no reject_reason key', async () => {
    const { result } = await askAndRespond(t, TWO_QUESTIONS, { rejected: true, reject_reason: '' });
    expect(result.structuredContent).toEqual({ rejected: true, db: { answered: false, rejected: true }, q2: { answered: false, rejected: true } });
    expect(Object.keys(JSON.parse(textOf(result)) as object)).not.toContain('reject_reason');
  });

  it('default ids (q1..qN) key the result; options carry descriptions; the text escapes like Go (<, >, &)', async () => {
    const questions = [
      { prompt: 'Colour?', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cold' }] },
      { prompt: 'Size?', options: [{ label: 'S' }, { label: 'L' }] },
    ];
    const { result } = await askAndRespond(t, questions, {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt2'], custom_text: '<b>&</b>' },
        { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
      ],
    });
    expect(result.structuredContent).toEqual({ q1: { selected_option: 'q1_opt2', custom_text: '<b>&</b>' }, q2: { selected_option: 'q2_opt1' } });
    expect(textOf(result)).toContain('"custom_text": "\\u003cb\\u003e\\u0026\\u003c/b\\u003e"');
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });
});
