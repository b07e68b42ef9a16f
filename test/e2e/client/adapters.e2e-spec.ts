/**
 * Each framework adapter with the real framework package, the agent as its own process (the
 * examples, `npm run example -- <name>`) against the real built server: each example asks one
 * bundle through its framework's own mechanism and is answered from REST, GraphQL and MCP in turn,
 * and rejected once; the AI SDK's askHuman tool is driven in this process by the SDK's mock model.
 * The output contract is checked as printed: `waiting <pending_id>`, one JSON line, exit 0 — and
 * exit 1 with one clear line when the server cannot be reached.
 */
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Parley } from '@parley/client';
import { askHumanTool } from '@parley/client/ai-sdk';
import { createTestDatabase } from '../../support/database.js';
import { EXAMPLE, spawnAgent } from '../../support/agent-process.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';
import { freePort, killAllServers, type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { type Answer, submit, type Surface, SURFACES } from '../../support/surfaces.js';

describe('the framework adapters, answered on every surface', () => {
  let server: ServerProcess;
  let mcp: McpConnection;

  beforeAll(async () => {
    server = await startServerProcess({ env: { DATABASE_URL: await createTestDatabase() } });
    mcp = await connectMcp(server.baseUrl);
  });
  afterAll(async () => {
    await mcp.close();
    await killAllServers();
  });

  /** Runs example `name`, resolves its bundle on `surface` with `answers` (or a rejection), and returns what it printed. */
  async function runAnswered(name: string, surface: Surface, decision: { answers: Answer[] } | { reason: string }) {
    const agent = spawnAgent(EXAMPLE(name), { PARLEY_URL: server.baseUrl, PARLEY_STATE_DIR: `${server.dataDir}/${name}-${surface}` });
    const pendingId = await agent.waiting();
    const bundle = await new Parley({ url: server.baseUrl }).get(pendingId);
    const submission = 'answers' in decision ? { kind: 'answer' as const, answers: decision.answers } : { kind: 'reject' as const, reason: decision.reason };
    const outcome = await submit(surface, { baseUrl: server.baseUrl, mcp }, pendingId, submission);
    expect(outcome).toMatchObject({ kind: 'resolved', envelope: { claimed: true } });
    const { exit, json, stderr } = await agent.result();
    expect({ exit, stderr }).toEqual({ exit: { code: 0, signal: null }, stderr: '' });
    expect(agent.output.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    return { pendingId, bundle, json };
  }

  const approve = (note: string): Answer[] => [{ question_id: 'approval_1', selected_options: ['approve'], custom_text: note }];

  describe('AI SDK (tool approval)', () => {
    it.each(SURFACES)('a tool call waits for its approval, answered on %s, and the run continues with the decision', async (surface) => {
      const { bundle, json } = await runAnswered('ai-sdk', surface, { answers: approve(`via ${surface}`) });
      expect(bundle.questions).toEqual([expect.objectContaining({ id: 'approval_1', title: 'Approve deploy?', prompt: expect.stringContaining('"environment": "production"') })]);
      expect(json).toEqual({ answered: [{ type: 'tool-approval-response', approvalId: expect.any(String), approved: true, reason: `via ${surface}` }] });
    });

    it('a rejected bundle prints its reason', async () => {
      expect((await runAnswered('ai-sdk', 'rest', { reason: 'not on a Friday' })).json).toEqual({ rejected: 'not on a Friday' });
    });
  });

  describe('OpenAI Agents SDK (interruptions)', () => {
    it.each(SURFACES)('the run’s interruption becomes one bundle, answered on %s; state.approve runs the tool', async (surface) => {
      const { bundle, json } = await runAnswered('openai-agents', surface, { answers: approve('') });
      expect(bundle.questions).toEqual([expect.objectContaining({ id: 'approval_1', prompt: expect.stringContaining('issue_refund') })]);
      expect(json).toEqual({
        answered: {
          decisions: [{ id: 'call-refund', toolName: 'issue_refund', approved: true, reason: '' }],
          finalOutput: expect.stringContaining('refunded 129 EUR on A-1042'),
        },
      });
    });

    it('a denial calls state.reject: the tool does not run and the model is told why', async () => {
      const answers: Answer[] = [{ question_id: 'approval_1', selected_options: ['deny'], custom_text: 'too much' }];
      const { json } = await runAnswered('openai-agents', 'graphql', { answers });
      expect(json).toMatchObject({ answered: { decisions: [{ approved: false, reason: 'too much' }], finalOutput: expect.stringContaining('too much') } });
      expect(JSON.stringify(json)).not.toContain('refunded');
    });

    it('a rejected bundle prints its reason', async () => {
      expect((await runAnswered('openai-agents', 'mcp', { reason: 'ask finance' })).json).toEqual({ rejected: 'ask finance' });
    });
  });

  describe('LangGraph.js (interrupt and Command resume)', () => {
    it.each(SURFACES)('the interrupt payload becomes a bundle, answered on %s, and the thread resumes with it', async (surface) => {
      const answers: Answer[] = [{ question_id: 'plan', selected_options: ['canary'], custom_text: surface }];
      const { pendingId, bundle, json } = await runAnswered('langgraph', surface, { answers });
      expect(bundle.context).toContain('langgraph thread');
      expect(json).toEqual({
        answered: { status: 'answered', pending_id: pendingId, answers: [{ question_id: 'plan', selected_options: ['canary'], selected_labels: ['Canary'], custom_text: surface }] },
      });
    });

    it('a rejected bundle prints its reason', async () => {
      expect((await runAnswered('langgraph', 'graphql', { reason: 'wait for Monday' })).json).toEqual({ rejected: 'wait for Monday' });
    });
  });

  it('every example exits 1 with one clear line when the server cannot be reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const name of ['ai-sdk', 'openai-agents', 'langgraph']) {
      const { exit, stderr } = await spawnAgent(EXAMPLE(name), { PARLEY_URL: url, PARLEY_STATE_DIR: `${server.dataDir}/unreachable-${name}` }).result();
      expect(exit.code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([`${name}: Parley is not reachable at ${url}: fetch failed (ECONNREFUSED). Start the server (npm start) or set PARLEY_URL.`]);
    }
  });

  it('the AI SDK askHuman tool: the model asks 1–4 questions, and gets the answer as the tool result', async () => {
    const parley = new Parley({ url: server.baseUrl });
    const { sessionId } = await parley.projection.openSession({ taskTitle: 'askHuman' });
    const asked: string[] = [];
    const input = { questions: [{ id: 'color', prompt: 'Which color?', options: [{ label: 'Red' }, { label: 'Blue' }] }, { prompt: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] }] };
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
    const model = new MockLanguageModelV3({
      doGenerate: [
        { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'askHuman', input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
        { content: [{ type: 'text', text: 'thanks' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
      ],
    });
    // A person answers on MCP while the tool waits (onAsked runs once the bundle is asked).
    const answerOnMcp = async (pendingId: string) => {
      asked.push(pendingId);
      const outcome = await submit('mcp', { baseUrl: server.baseUrl, mcp }, pendingId, {
        kind: 'answer',
        answers: [
          { question_id: 'color', selected_options: ['q1_opt2'], custom_text: '' },
          { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: 'today' },
        ],
      });
      expect(outcome.kind).toBe('resolved');
    };
    const tools = { askHuman: askHumanTool({ parley, sessionId, onAsked: answerOnMcp }) };
    const result = await generateText({ model, tools, prompt: 'Pick a color', stopWhen: stepCountIs(3) });
    expect(asked).toHaveLength(1);
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult?.output).toEqual({
      status: 'answered',
      pending_id: asked[0],
      answers: [
        { question_id: 'color', selected_options: ['q1_opt2'], selected_labels: ['Blue'], custom_text: '' },
        { question_id: 'q2', selected_options: ['q2_opt1'], selected_labels: ['Yes'], custom_text: 'today' },
      ],
    });
    expect(result.text).toBe('thanks');
  });
});
