/**
 * The question as an MCP App on /mcp (docs/api/mcp.md): the `ui://parley/question` resource, the
 * tools that point at it, and the app-only submit — which answers through the one resolver, recorded
 * as the `mcp_app` surface — driven by the v2 SDK client on both protocol versions.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, freshBundle, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { connectMcpV2, PROTOCOL_VERSIONS } from '../../support/mcp-v2.js';

const APP_URI = 'ui://parley/question';
const ANSWERS = [
  { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'from the app' },
];
const OTHER = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

describe.each(PROTOCOL_VERSIONS)('the question app at %s', (version) => {
  it('/mcp serves ui://parley/question as an MCP App page: its script and style from Parley\'s origin, declared; no inline script', async () => {
    const mcp = await connectMcpV2(t.baseUrl, version);
    try {
      const origin = new URL(t.baseUrl).origin;
      const { resources } = await mcp.client.listResources();
      expect(resources).toEqual([
        expect.objectContaining({ uri: APP_URI, mimeType: 'text/html;profile=mcp-app', _meta: { ui: { csp: { resourceDomains: [origin] } } } }),
      ]);
      const { contents } = await mcp.client.readResource({ uri: APP_URI });
      expect(contents).toHaveLength(1);
      const [page] = contents as Array<{ uri: string; mimeType: string; text: string }>;
      expect(page.mimeType).toBe('text/html;profile=mcp-app');
      expect(page.text).toContain(`<script src="${origin}/question-app/question.js"></script>`);
      expect(page.text).toContain(`<link rel="stylesheet" href="${origin}/question-app/question.css" />`);
      expect(page.text.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
      await expect(mcp.client.readResource({ uri: 'ui://parley/nothing' })).rejects.toThrow();
    } finally {
      await mcp.close();
    }
  });

  it('the question tools point at the app; the app\'s submit is for the app only', async () => {
    const mcp = await connectMcpV2(t.baseUrl, version);
    try {
      const { tools } = await mcp.client.listTools();
      const metaOf = (name: string) => tools.find((tool) => tool.name === name)?._meta;
      expect(metaOf('list_pending_questions_kandev')).toEqual({ ui: { resourceUri: APP_URI }, 'ui/resourceUri': APP_URI });
      expect(metaOf('show_question')).toEqual({ ui: { resourceUri: APP_URI }, 'ui/resourceUri': APP_URI });
      expect(metaOf('answer_question_in_app')).toEqual({ ui: { resourceUri: APP_URI, visibility: ['app'] }, 'ui/resourceUri': APP_URI });
      expect(metaOf('answer_question_kandev')).toBeUndefined();
    } finally {
      await mcp.close();
    }
  });

  it('show_question reads the bundle; the app answers it (mcp_app); a second app instance loses and is told the winner\'s answer', async () => {
    const { pendingId } = await freshBundle(t);
    const [first, second] = [await connectMcpV2(t.baseUrl, version), await connectMcpV2(t.baseUrl, version)];
    try {
      const shown = await first.call('show_question', { pending_id: pendingId });
      expect(shown.structured).toMatchObject({ pending_id: pendingId, status: 'pending', questions: [{ id: 'db' }, { id: 'q2' }] });

      const won = await first.call('answer_question_in_app', { pending_id: pendingId, answers: ANSWERS });
      expect(won.structured).toMatchObject({ claimed: true, status: 'answered', response: { answers: ANSWERS } });
      const lost = await second.call('answer_question_in_app', { pending_id: pendingId, answers: OTHER });
      expect(lost.structured).toMatchObject({ claimed: false, status: 'answered', response: { answers: ANSWERS } });

      const read = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200);
      expect(read.body.resolved_by).toMatchObject({ surface: 'mcp_app' });
      const again = await second.call('show_question', { pending_id: pendingId });
      expect(again.structured).toMatchObject({ status: 'answered', resolved_by: { surface: 'mcp_app' } });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('an unknown bundle is NOT_FOUND on both app tools, and bad input a VALIDATION_ERROR naming the field', async () => {
    const mcp = await connectMcpV2(t.baseUrl, version);
    try {
      const missing = await mcp.call('show_question', { pending_id: 'no-such-bundle' });
      expect(JSON.parse(missing.text)).toMatchObject({ code: 'NOT_FOUND' });
      const unanswerable = await mcp.call('answer_question_in_app', { pending_id: 'no-such-bundle', answers: ANSWERS });
      expect(unanswerable.text).toBe((await mcp.call('answer_question_kandev', { pending_id: 'no-such-bundle', answers: ANSWERS })).text);
      const bad = await mcp.call('show_question', {});
      expect(JSON.parse(bad.text)).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(bad.text).toContain('pending_id');
    } finally {
      await mcp.close();
    }
  });

  it('a session agent\'s ask at this version, answered in the app, returns that answer', async () => {
    const fixture = await createRunningSession(t);
    const agent = await connectMcpV2(t.baseUrl, version, { bearer: fixture.agentToken, path: '/mcp/session' });
    const person = await connectMcpV2(t.baseUrl, version);
    try {
      const asking = agent.call('ask_user_question_kandev', { questions: TWO_QUESTIONS });
      const pendingId = await eventually(async () => {
        const { rows } = await t.db.query<{ pending_id: string }>(
          `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages WHERE task_session_id = $1 AND type = 'clarification_request' LIMIT 1`,
          [fixture.sessionId],
        );
        const id = rows[0]?.pending_id;
        return id !== undefined && t.app.get(WaiterStore).waiterCount(id) === 1 ? id : undefined;
      });
      expect((await person.call('answer_question_in_app', { pending_id: pendingId, answers: ANSWERS })).structured).toMatchObject({ claimed: true });
      expect((await asking).structured).toEqual({ db: { selected_option: 'sqlite' }, q2: { selected_option: 'q2_opt2', custom_text: 'from the app' } });
    } finally {
      await agent.close();
      await person.close();
    }
  });
});
