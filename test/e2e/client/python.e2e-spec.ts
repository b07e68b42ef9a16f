/**
 * The Python client (packages/python, `parley-client`) and its LangGraph, OpenAI Agents SDK and
 * Pydantic AI adapters: their pytest suite (packages/python/tests) runs once, here, against the real
 * built server, which the suite spawns itself (so it can kill it with SIGKILL and start it again) on
 * an empty database of this run's PostgreSQL. The virtual environment is made by the test run from
 * the pinned, hash-checked packages/python/requirements-dev.txt (test/support/python-venv.ts) and
 * reused while the requirements are unchanged; the package is imported from its sources, and one of
 * the Python tests builds its wheel and installs it into a fresh virtual environment.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnAgent } from '../../support/agent-process.js';
import { createTestDatabase } from '../../support/database.js';
import { killAllServers, startServerProcess } from '../../support/server-process.js';
import { pythonClientPython, runPython, VENV_TIMEOUT_MS } from '../../support/python-venv.js';

const PACKAGE = path.join(process.cwd(), 'packages/python');
const RUN_TIMEOUT_MS = 480_000;
const RUN_EXAMPLE = fileURLToPath(new URL('../../../scripts/run-example.mjs', import.meta.url));

describe('the Python client and its adapters (pytest against the built server)', () => {
  let python: string;

  beforeAll(async () => {
    python = await pythonClientPython();
  }, VENV_TIMEOUT_MS);
  afterAll(async () => {
    await killAllServers();
  });

  it(
    'passes every test of packages/python/tests: client, adapters on REST, GraphQL and MCP, kill -9 of server and agent, the wheel',
    async () => {
      const run = await runPython(python, ['-m', 'pytest', '-p', 'no:cacheprovider', '-q', '-rfE', '--durations=5', 'tests'], {
        cwd: PACKAGE,
        env: { PARLEY_TEST_DATABASE_URL: await createTestDatabase(), PARLEY_TEST_NODE: process.execPath, NO_COLOR: '1' },
        timeoutMs: RUN_TIMEOUT_MS,
      });
      // pytest's closing line: "<n> passed in <seconds>s (<h:mm:ss>)".
      const closing = run.output.trimEnd().split('\n').at(-1) ?? '';
      const summary = /^=*\s*(.*?) in [\d.]+s/.exec(closing)?.[1] ?? '';
      if (run.code !== 0 || !/\d+ passed/.test(summary) || /failed|error/.test(summary)) throw new Error(`pytest exited ${run.code}:\n${run.output}`);
      expect(summary).toMatch(/^\d+ passed$/);
    },
    RUN_TIMEOUT_MS + 30_000,
  );

  it('npm run example -- python/pydantic_ai runs the example in that environment: waiting, the answer, one JSON line', async () => {
    const server = await startServerProcess({ env: { DATABASE_URL: await createTestDatabase() } });
    const agent = spawnAgent(RUN_EXAMPLE, { PARLEY_URL: server.baseUrl, PARLEY_STATE_DIR: `${server.dataDir}/python-example` }, ['python/pydantic_ai']);
    const pendingId = await agent.waiting();
    const answers = [{ question_id: 'approval_1', selected_options: ['approve'], custom_text: '' }];
    const response = await fetch(`${server.baseUrl}/api/v1/clarification/${pendingId}/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers }),
    });
    expect(response.status).toBe(200);
    const { exit, json, stderr } = await agent.result();
    expect({ exit, stderr }).toEqual({ exit: { code: 0, signal: null }, stderr: '' });
    expect(json).toMatchObject({ answered: { decisions: [{ id: 'call-deploy', tool_name: 'deploy', approved: true }], output: 'Done: deployed checkout to production' } });
  });
});
