/**
 * Both MCP endpoints pass the official MCP Inspector's `--strict` check of
 * tools/list (tool-schema portability) without an error or a warning. The Inspector's own CLI runs
 * in a child process against the listening app, as a user would run it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession } from '../../support/fixtures.js';

const INSPECTOR = path.join(process.cwd(), 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

interface InspectorRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function inspectStrict(url: string, bearer?: string): Promise<InspectorRun> {
  const home = await mkdtemp(path.join(tmpdir(), 'parley-inspector-'));
  const args = [INSPECTOR, '--cli', url, '--transport', 'http', '--method', 'tools/list', '--strict'];
  if (bearer) args.push('--header', `Authorization: Bearer ${bearer}`);
  const env = { ...process.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json'), NODE_OPTIONS: '' };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { env, timeout: 60_000 });
    return { exitCode: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

function toolNames(run: InspectorRun): string[] {
  const listed = JSON.parse(run.stdout) as { tools: Array<{ name: string }> };
  return listed.tools.map((tool) => tool.name).sort();
}

describe('MCP Inspector --strict', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('/mcp: the external tools list with no portability error or warning', async () => {
    const run = await inspectStrict(`${t.baseUrl}/mcp`);
    expect({ exitCode: run.exitCode, stderr: run.stderr.trim() }).toEqual({ exitCode: 0, stderr: '' });
    expect(toolNames(run)).toEqual(['answer_question_in_app', 'answer_question_kandev', 'list_pending_questions_kandev', 'list_tasks_kandev', 'show_question']);
  });

  it('/mcp/session: the session agent tools list with no portability error or warning', async () => {
    const { agentToken } = await createRunningSession(t);
    const run = await inspectStrict(`${t.baseUrl}/mcp/session`, agentToken);
    expect({ exitCode: run.exitCode, stderr: run.stderr.trim() }).toEqual({ exitCode: 0, stderr: '' });
    expect(toolNames(run)).toContain('ask_user_question_kandev');
  });
});
