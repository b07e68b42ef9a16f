/**
 * Schemathesis (a suite we did not write, pinned in test/schemathesis/requirements.txt) fuzzes every
 * operation of the committed OpenAPI document, docs/api/openapi.json — whatever it holds when the test
 * runs — against the real application on a fresh database, with auth enabled and a real user's token:
 * no 5xx, and every response's status, content type and body as the document says.
 *
 * Its Python virtual environment is made by the test run itself (`python3 -m venv`, then `pip install`
 * of the pinned, hash-checked requirements) under node_modules/.cache/parley-schemathesis/<hash of the
 * requirements>, so later runs reuse it and a change of the requirements makes a new one.
 *
 * Nothing is excluded: the one long poll, GET /api/v1/clarification/{id}/wait, is given a 200 ms
 * WAIT_TIMEOUT_MS (it then answers its documented 504), and the rate limits are raised so the fuzzer
 * sees the routes rather than their 429s.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AppConfig, loadConfig } from '#config';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createUser } from '../../support/fixtures.js';
import { runPython, schemathesisPython, VENV_TIMEOUT_MS } from '../../support/python-venv.js';

const ROOT = process.cwd();
const DOCUMENT = path.join(ROOT, 'docs/api/openapi.json');

/** Bounded so the run takes about a minute on 2 cores; the seed makes it repeatable (both may be changed for a deeper run). */
const SEED = process.env.SCHEMATHESIS_SEED ?? '20260534';
const MAX_EXAMPLES = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '50';
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'];
const RUN_TIMEOUT_MS = 240_000;

type Json = Record<string, unknown>;

/** One JSON call to the app under test, failing loudly: the fixtures the fuzzer starts from. */
async function call(t: TestApp, token: string, method: string, route: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${t.baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : {}) as Json;
}

/**
 * Webhook targets the fuzzer may subscribe besides the text it makes up (which is seldom a URL, so it
 * would hardly get past the 400s): names that never resolve, so no delivery leaves the machine.
 */
const WEBHOOK_URLS = ['https://parley-fuzz.invalid/hook', 'http://parley-fuzz.invalid:8080/other?x=1'];

const QUESTIONS = [{ id: 'go', prompt: 'Go?', options: [{ option_id: 'y', label: 'Yes' }, { option_id: 'n', label: 'No' }] }];

/** Ids of real rows the fuzzer may use besides the ones it makes up (most made-up ids only meet a 404). */
interface Known {
  users: string[];
  tokens: string[];
  workspaces: string[];
  tasks: string[];
  sessions: string[];
  turns: string[];
  bundles: string[];
  webhooks: string[];
}

/** The user's own workspace, task, running session with a turn, pending bundles and a webhook; another user and a spare token. */
async function arrange(t: TestApp, user: { id: string; token: string }): Promise<Known> {
  const other = await createUser(t, 'schemathesis-other');
  const spare = await call(t, TEST_ADMIN_TOKEN, 'POST', `/api/v1/admin/users/${other.id}/tokens`, { name: 'spare' });
  const workspace = await call(t, user.token, 'POST', '/api/v1/workspaces', { name: 'fuzzed' });
  const task = await call(t, user.token, 'POST', '/api/v1/tasks', { title: 'fuzzed', workspace_id: workspace.id });
  // Three running sessions, each with a turn and a pending bundle (a session has one at a time).
  const sessions: string[] = [];
  const turns: string[] = [];
  const bundles: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const session = String((await call(t, user.token, 'POST', `/api/v1/tasks/${String(task.id)}/sessions`, {})).id);
    await call(t, user.token, 'PATCH', `/api/v1/sessions/${session}`, { state: 'RUNNING' });
    turns.push(String((await call(t, user.token, 'POST', `/api/v1/sessions/${session}/turns`)).id));
    bundles.push(String((await call(t, user.token, 'POST', '/api/v1/clarification/request', { session_id: session, questions: QUESTIONS })).pending_id));
    sessions.push(session);
  }
  // A target that never resolves: a delivery fails at once, without leaving the machine.
  const webhook = await call(t, user.token, 'POST', `/api/v1/workspaces/${String(workspace.id)}/webhooks`, { url: WEBHOOK_URLS[0], events: ['asked'] });
  return {
    users: [user.id, other.id],
    tokens: [String(spare.id)],
    workspaces: [String(workspace.id)],
    tasks: [String(task.id)],
    sessions,
    turns,
    bundles,
    webhooks: [String(webhook.id)],
  };
}

const toml = (value: unknown): string => (Array.isArray(value) ? `[${value.map(toml).join(', ')}]` : typeof value === 'object' && value !== null ? `{ ${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)} = ${toml(v)}`).join(', ')} }` : JSON.stringify(value));

/**
 * The run's schemathesis.toml: the user's token on every request (the admin token on /api/v1/admin/
 * routes, which a user may not call), and the known ids offered, half of the time, for the path
 * parameters and body fields that name them.
 */
function configFile(known: Known, userToken: string): string {
  const offered = { ...known, webhookUrls: WEBHOOK_URLS };
  const dictionaries = Object.entries(offered).map(([name, values]) => `[dictionaries.${name}]\nvalues = ${toml(values)}\n`);
  const half = (dictionary: keyof typeof offered) => ({ dictionary, probability: 0.5 });
  const bodyIds = { 'body.session_id': half('sessions'), 'body.task_id': half('tasks'), 'body.workspace_id': half('workspaces'), 'body.user_id': half('users'), 'body.owner_id': half('users') };
  const operations: Array<[string, Record<string, unknown>, string?]> = [
    ['^/api/v1/admin/users/\\{id\\}', { 'path.id': half('users') }, TEST_ADMIN_TOKEN],
    ['^/api/v1/admin/tokens/\\{id\\}', { 'path.id': half('tokens') }, TEST_ADMIN_TOKEN],
    ['^/api/v1/admin/workspaces/\\{id\\}', { 'path.id': half('workspaces'), 'path.userId': half('users'), ...bodyIds }, TEST_ADMIN_TOKEN],
    ['^/api/v1/admin/users$', bodyIds, TEST_ADMIN_TOKEN],
    ['^/metrics$', {}, TEST_ADMIN_TOKEN],
    // The first entry a route matches decides its parameters: the webhook routes before their prefixes.
    ['^/api/v1/workspaces/\\{id\\}/webhooks$', { 'path.id': half('workspaces'), 'body.url': half('webhookUrls') }],
    ['^/api/v1/workspaces/\\{id\\}', { 'path.id': half('workspaces') }],
    ['^/api/v1/tasks/\\{id\\}', { 'path.id': half('tasks') }],
    ['^/api/v1/sessions/\\{id\\}', { 'path.id': half('sessions'), 'path.turnId': half('turns') }],
    ['^/api/v1/clarification/\\{id\\}', { 'path.id': half('bundles') }],
    ['^/api/v1/webhooks/\\{id\\}', { 'path.id': half('webhooks'), 'body.url': half('webhookUrls') }],
    ['^/api/v1/(tasks|workspaces|clarification/request)$', bodyIds],
    ['^/api/v1/commands$', { 'body.target.worker_id': half('sessions') }],
  ];
  return [
    `headers = ${toml({ Authorization: `Bearer ${userToken}` })}`,
    '',
    ...dictionaries,
    ...operations.map(([regex, parameters, token]) =>
      [
        '[[operations]]',
        `include-path-regex = ${JSON.stringify(regex)}`,
        ...(Object.keys(parameters).length > 0 ? [`parameters = ${toml(parameters)}`] : []),
        ...(token ? [`headers = ${toml({ Authorization: `Bearer ${token}` })}`] : []),
        '',
      ].join('\n'),
    ),
  ].join('\n');
}

describe('schemathesis against the committed OpenAPI document', () => {
  let t: TestApp;
  let python: string;

  beforeAll(async () => {
    python = await schemathesisPython();
    const defaults = loadConfig({});
    t = await startApp({
      config: {
        authMode: 'enabled',
        waitTimeoutMs: 200,
        rateLimitStore: 'memory',
        // Every budget (whatever kinds there are) far above what the run spends; the window as it is.
        rateLimits: Object.fromEntries(Object.entries(defaults.rateLimits).map(([kind, value]) => [kind, kind === 'windowSeconds' ? value : 1_000_000])) as unknown as AppConfig['rateLimits'],
        webhooks: { ...defaults.webhooks, maxAttempts: 1 },
      },
    });
  }, VENV_TIMEOUT_MS);
  afterAll(async () => {
    await t?.close();
  });

  it(
    'finds no 5xx and no status, content type or body the document does not describe',
    async () => {
      const user = await createUser(t, 'schemathesis');
      const known = await arrange(t, user);
      const work = await mkdtemp(path.join(tmpdir(), 'parley-schemathesis-'));
      const config = path.join(work, 'schemathesis.toml');
      await writeFile(config, configFile(known, user.token));
      const result = await runPython(
        python,
        [
          '-m',
          'schemathesis.cli',
          '--config-file',
          config,
          'run',
          DOCUMENT,
          '--url',
          t.baseUrl,
          '--checks',
          CHECKS.join(','),
          '--workers',
          '1',
          '--seed',
          SEED,
          '--max-examples',
          MAX_EXAMPLES,
          '--generation-database',
          'none',
          '--request-timeout',
          '10',
          '--no-color',
          '--output-truncate',
          'false',
          '--continue-on-failure',
          '--report',
          'junit',
          '--report-dir',
          work,
        ],
        { cwd: work, env: { NO_COLOR: '1' }, timeoutMs: RUN_TIMEOUT_MS },
      );
      const summary = `schemathesis exited ${result.code} after ${result.seconds.toFixed(0)} s (its reports in ${work}):\n${result.output.slice(-30_000)}`;
      expect(result.code === 0 ? 'passed' : summary).toBe('passed');
      await rm(work, { recursive: true, force: true });
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
