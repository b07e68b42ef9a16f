/**
 * The CLI (`parley` bin = bin/parley.mjs, `npm run parley -- …`): --help and `help COMMAND`
 * print usage and exit 0; every command prints a readable table by default and JSON with --json;
 * identity and workspace commands act on the database as the operator, `questions:*` call the running
 * server's REST API as the terminal user (PARLEY_TOKEN) — and the launcher runs the built output
 * without compiling anything when dist/ is up to date. The demo agent (`npm run demo`) runs its whole
 * flow against the app: it asks over /mcp/session, the bundle is listed over REST, and the CLI answers it.
 *
 * The commands run in this process (runCli, what the entry point runs, with the environment and
 * output streams given), as a spawned Node process per call is slow (docs/benchmarks.md, "Figures
 * behind bounds in the code"). The real entry points —
 * the `parley` bin and `npm run parley` — are spawned for the exit codes 0, 1 and 2 and for running
 * dist/ without a build.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { DEMO_QUESTIONS, runDemoAgent } from '../../../apps/demo/src/demo-agent.js';
import { runCli } from '../../../apps/server/src/cli/cli-runner.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';

const run = promisify(execFile);
const PARLEY = path.resolve(process.cwd(), 'bin/parley.mjs');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** Each spawned call is a fresh Node process loading the application: a test running several gets room on a busy machine. */
const SEVERAL_PROCESSES_MS = 240_000;
const COMMAND_NAMES = ['users:create', 'users:list', 'tokens:create', 'tokens:list', 'tokens:revoke', 'workspaces:create', 'workspaces:list', 'members:add', 'members:list', 'members:remove', 'questions:list', 'questions:answer'];

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the parley CLI', () => {
  let t: TestApp;

  function environment(env: Record<string, string>): NodeJS.ProcessEnv {
    return { ...process.env, DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'silent', NODE_OPTIONS: '', PARLEY_URL: t.baseUrl, ...env };
  }

  /** One CLI invocation in this process, as the entry point runs it. */
  async function parley(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const result: CliResult = { code: -1, stdout: '', stderr: '' };
    const stdout = { write: (text: string) => (result.stdout += text) };
    const stderr = { write: (text: string) => (result.stderr += text) };
    result.code = await runCli(args, { env: environment(env), stdout, stderr });
    return result;
  }

  /** One invocation of a real entry point: a Node process (`parley` bin) or npm (`npm run parley --`). */
  async function spawned(file: string, args: string[]): Promise<CliResult> {
    try {
      const { stdout, stderr } = await run(file, args, { env: environment({}), timeout: 60_000 });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  }

  const bin = (args: string[]) => spawned(process.execPath, [PARLEY, ...args]);

  async function json<T = Record<string, unknown>>(args: string[], env: Record<string, string> = {}): Promise<T> {
    const result = await parley([...args, '--json'], env);
    expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(result.stdout) as T;
  }

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('help', () => {
    it.each([[['--help']], [['help']], [[]]])('%j prints every command and exits 0', async (args) => {
      const result = await parley(args);
      expect(result.code).toBe(0);
      for (const command of COMMAND_NAMES) {
        expect(result.stdout).toContain(command);
      }
      expect(result.stderr).toBe('');
    });

    it('`help COMMAND` and `COMMAND --help` print that command’s usage and exit 0; an unknown command exits 2', async () => {
      const help = await parley(['help', 'questions:answer']);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^usage: parley questions:answer PENDING_ID/);
      const flag = await parley(['tokens:create', '--help']);
      expect(flag.code).toBe(0);
      expect(flag.stdout).toMatch(/^usage: parley tokens:create --user USER_ID/);
      const unknown = await parley(['frobnicate']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    });
  });

  it('users, tokens and workspaces: each command’s JSON, a table by default, errors as {error, code}', async () => {
    const user = await json<{ id: string; name: string }>(['users:create', '--name', 'carol']);
    expect(user).toEqual({ id: expect.any(String), name: 'carol' });
    const users = await json<{ users: Array<{ id: string; name: string; created_at: string }> }>(['users:list']);
    expect(users.users).toContainEqual({ id: user.id, name: 'carol', created_at: expect.any(String) });

    const token = await json<{ id: string; user_id: string; token: string }>(['tokens:create', '--user', user.id, '--name', 'laptop']);
    expect(token).toEqual({ id: expect.any(String), user_id: user.id, token: expect.stringMatching(/^parley_pat_/) });
    const tokens = await json<{ tokens: Array<Record<string, unknown>> }>(['tokens:list', '--user', user.id]);
    expect(tokens.tokens).toEqual([{ id: token.id, user_id: user.id, name: 'laptop', created_at: expect.any(String), last_used_at: null, revoked_at: null }]);
    expect(JSON.stringify(tokens)).not.toContain(token.token);

    const workspace = await json<{ id: string; owner_id: string }>(['workspaces:create', '--name', 'Carol’s', '--owner', user.id]);
    expect(workspace).toMatchObject({ id: expect.any(String), name: 'Carol’s', owner_id: user.id });
    const workspaces = await json<{ workspaces: Array<{ id: string }> }>(['workspaces:list']);
    expect(workspaces.workspaces.map((row) => row.id)).toContain(workspace.id);

    // Members: an idempotent add, the list, an unknown user named, a remove.
    const dave = await json<{ id: string }>(['users:create', '--name', 'dave']);
    const added = await json<{ added: boolean; user_id: string }>(['members:add', '--workspace', workspace.id, '--user', dave.id]);
    expect(added).toMatchObject({ workspace_id: workspace.id, user_id: dave.id, name: 'dave', added: true });
    expect(await json(['members:add', '--workspace', workspace.id, '--user', dave.id])).toMatchObject({ added: false });
    expect(await json(['members:list', '--workspace', workspace.id])).toEqual({ members: [{ workspace_id: workspace.id, user_id: dave.id, name: 'dave', added_at: expect.any(String) }] });
    const ghost = await parley(['members:add', '--workspace', workspace.id, '--user', 'ghost', '--json']);
    expect({ code: ghost.code, error: JSON.parse(ghost.stderr) as unknown }).toEqual({ code: 1, error: expect.objectContaining({ code: 'VALIDATION_ERROR', error: expect.stringMatching(/^--user names no user/) }) });
    expect(await json(['members:remove', '--workspace', workspace.id, '--user', dave.id])).toEqual({ workspace_id: workspace.id, user_id: dave.id, removed: true });

    const table = await parley(['users:list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ id\s+│ name\s+│ created_at/);
    expect(table.stdout).toContain('carol');

    const revoked = await json<{ id: string; revoked_at: string }>(['tokens:revoke', token.id]);
    expect(revoked).toEqual({ id: token.id, revoked_at: expect.any(String) });
    await request(t.baseUrl).get('/api/v1/tasks').set('authorization', `Bearer ${token.token}`).expect(401);

    const missing = await parley(['tokens:revoke', 'no-such-token', '--json']);
    expect({ code: missing.code, stdout: missing.stdout, error: JSON.parse(missing.stderr) as unknown }).toEqual({
      code: 1,
      stdout: '',
      error: { error: 'token not found', code: 'NOT_FOUND' },
    });
    const text = await parley(['tokens:revoke', 'no-such-token']);
    expect(text.stderr).toBe('error: token not found\n');
  });

  it('migrations:run reports the schema up to date', async () => {
    expect(await json(['migrations:run'])).toEqual({ migrations: 'up to date' });
  });

  it('the demo agent asks over /mcp/session; the bundle is listed over REST (as with curl) and the CLI answers it as the terminal user', async () => {
    const user = await json<{ id: string }>(['users:create', '--name', 'dana']);
    const { token } = await json<{ token: string }>(['tokens:create', '--user', user.id]);
    const narration: string[] = [];
    const demo = runDemoAgent({ baseUrl: t.baseUrl, token: TEST_ADMIN_TOKEN, say: (line) => narration.push(line) });

    // What the README's curl does: GET /api/v1/clarification with the user's token.
    const bundle = await eventually(async () => {
      const res = await request(t.baseUrl).get('/api/v1/clarification').set('authorization', `Bearer ${token}`).expect(200);
      return (res.body as { bundles: Array<{ pending_id: string; questions: Array<{ question_id: string }> }> }).bundles[0];
    }, 20_000, 'the demo bundle listed');
    expect(bundle.questions.map((question) => question.question_id)).toEqual(DEMO_QUESTIONS.map((question) => question.id));

    const listed = await json<{ bundles: Array<{ pending_id: string }>; count: number; next_cursor: string }>(['questions:list'], { PARLEY_TOKEN: token });
    expect(listed).toMatchObject({ count: 1, next_cursor: '', bundles: [{ pending_id: bundle.pending_id }] });
    const table = await parley(['questions:list'], { PARLEY_TOKEN: token });
    // One table line per question (long cells wrap inside their column).
    expect(table.stdout).toMatch(/│ pending_id\s+│ question_id\s+│ prompt\s+│ options\s+│ age_seconds/);
    expect(table.stdout).toMatch(/│ database\s+│ Which database/);
    expect(table.stdout).toMatch(/│ deploy\s+│ Where should it/);

    const answered = await json<Record<string, unknown>>(
      ['questions:answer', bundle.pending_id, '--answer', 'database=postgres', '--answer', 'deploy=staging', '--text', 'deploy=after the tests pass'],
      { PARLEY_TOKEN: token },
    );
    expect(answered).toMatchObject({ success: true, claimed: true, status: 'answered' });
    const result = await demo;
    expect(JSON.stringify(result.answer)).toContain('postgres');
    expect(JSON.stringify(result.answer)).toContain('after the tests pass');
    expect(narration.some((line) => line.startsWith('answered: '))).toBe(true);

    const again = await json<Record<string, unknown>>(['questions:answer', bundle.pending_id, '--reject'], { PARLEY_TOKEN: token });
    expect(again).toMatchObject({ success: true, claimed: false, status: 'answered' });
    const stranger = await parley(['questions:list', '--json'], { PARLEY_TOKEN: 'parley_pat_not-a-token' });
    expect({ code: stranger.code, error: JSON.parse(stranger.stderr) as unknown }).toEqual({ code: 1, error: { error: expect.any(String), code: 'UNAUTHENTICATED' } });
  });

  describe('the real entry points', () => {
    it('the `parley` bin and `npm run parley --` print the usage and exit 0; a failure exits 1, a usage error 2; dist/ runs without a build', async () => {
      // Independent processes: started together, they share the wait for Node to load the application.
      const [help, viaNpm, unknown, missing, listed] = await Promise.all([
        bin(['--help']),
        spawned(NPM, ['run', '--silent', 'parley', '--', '--help']),
        bin(['frobnicate']),
        bin(['tokens:revoke', 'no-such-token', '--json']),
        bin(['users:list']),
      ]);
      for (const result of [help, viaNpm]) {
        expect(result.code).toBe(0);
        for (const command of COMMAND_NAMES) expect(result.stdout).toContain(command);
        expect(result.stderr).not.toMatch(/building/);
      }
      expect(help.stderr).toBe('');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
      expect({ code: missing.code, stdout: missing.stdout, error: JSON.parse(missing.stderr) as unknown }).toEqual({
        code: 1,
        stdout: '',
        error: { error: 'token not found', code: 'NOT_FOUND' },
      });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/│ id\s+│ name\s+│ created_at/);
      expect(listed.stderr).not.toMatch(/building/);
    }, SEVERAL_PROCESSES_MS);
  });
});
