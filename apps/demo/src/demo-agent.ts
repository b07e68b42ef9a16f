import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface DemoOptions {
  /** The running server, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** A token that may create a task (a personal access token or ADMIN_TOKEN); none with AUTH_MODE=disabled. */
  token?: string;
  /** Where the demo narrates what it does (stdout for `npm run demo`). */
  say: (line: string) => void;
  /** How often the blocked ask reports progress (the server's ASK_PROGRESS_INTERVAL_MS paces it). */
  onProgress?: (message: string) => void;
}

export interface DemoResult {
  taskId: string;
  sessionId: string;
  /** What the agent got back: the reference ask result (an object keyed by question id). */
  answer: Record<string, unknown>;
}

/** The two questions the scripted agent asks, as one bundle. */
export const DEMO_QUESTIONS = [
  {
    id: 'database',
    title: 'Database',
    prompt: 'Which database should the new service use?',
    options: [
      { option_id: 'postgres', label: 'PostgreSQL', description: 'What Parley itself runs on' },
      { option_id: 'sqlite', label: 'SQLite', description: 'One file, no server' },
    ],
  },
  {
    id: 'deploy',
    title: 'Deployment',
    prompt: 'Where should it be deployed first?',
    options: [
      { option_id: 'staging', label: 'Staging' },
      { option_id: 'production', label: 'Production' },
    ],
  },
];

async function api<T>(options: DemoOptions, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${options.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/**
 * The scripted agent: files a task, opens a session (whose agent token it keeps), and — as the agent
 * inside that session, through the official MCP SDK client on /mcp/session — asks a two-question
 * bundle with ask_user_question_kandev, which blocks until a person answers (in the browser inbox,
 * with the CLI, or over REST). Then it prints what it was told.
 */
export async function runDemoAgent(options: DemoOptions): Promise<DemoResult> {
  const task = await api<{ id: string }>(options, 'POST', '/api/v1/tasks', { title: 'Demo: choose a database and a deployment target' });
  const session = await api<{ id: string; agent_token: string }>(options, 'POST', `/api/v1/tasks/${task.id}/sessions`, {});
  await api(options, 'PATCH', `/api/v1/sessions/${session.id}`, { state: 'RUNNING' });
  await api(options, 'POST', `/api/v1/sessions/${session.id}/turns`);
  options.say(`task ${task.id}, session ${session.id}: the agent is running`);

  const client = new Client({ name: 'parley-demo-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${options.baseUrl}/mcp/session`), {
    requestInit: { headers: { authorization: `Bearer ${session.agent_token}` } },
  });
  await client.connect(transport);
  try {
    options.say('asking two questions; waiting for someone to answer them:');
    options.say(`  in the browser:  ${options.baseUrl}/`);
    options.say('  from a terminal: npm run parley -- questions:list   then   npm run parley -- questions:answer <PENDING_ID> …');
    const result = (await client.callTool(
      { name: 'ask_user_question_kandev', arguments: { questions: DEMO_QUESTIONS, context: 'A scripted demo agent (npm run demo).' } },
      undefined,
      {
        onprogress: (progress) => options.onProgress?.(progress.message ?? `still waiting (${progress.progress})`),
        resetTimeoutOnProgress: true,
        timeout: 24 * 3_600_000,
      },
    )) as CallToolResult;
    if (result.isError) throw new Error(`the ask ended without an answer: ${JSON.stringify(result.content)}`);
    const answer = (result.structuredContent ?? {}) as Record<string, unknown>;
    options.say(`answered: ${JSON.stringify(answer)}`);
    return { taskId: task.id, sessionId: session.id, answer };
  } finally {
    await client.close();
  }
}
