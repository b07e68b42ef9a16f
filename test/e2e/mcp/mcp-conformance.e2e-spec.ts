/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its 0.2 line) against /mcp
 * and /mcp/session of the real built server, for both protocol versions Parley serves: 2025-11-25
 * (`--spec-version`, the active scenarios of that revision) and 2026-07-28 (`--requirements`, exactly
 * the scenarios that revision requires, with its extension and pending ones). Every scenario either
 * passes outright or is listed, with its reason, in the version's
 * test/e2e/mcp/mcp-conformance.<version>.baseline.yml (the suite's own --expected-failures file), and
 * the CLI's exit status agrees.
 *
 * The suite needs Node ≥ 22 (it calls fs.globSync): it runs under the Node the tests run under, the
 * one package.json pins (the `node` devDependency, which npm scripts put first on the PATH).
 *
 * /mcp/session needs the session agent's Bearer token, and the suite's client connects with a bare
 * StreamableHTTPClientTransport (the CLI has no option for a header): it runs there through a
 * loopback proxy that adds the token and forwards everything else as sent (the Host included, so the
 * rebinding scenario's foreign Host reaches Parley).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { parse, stringify } from 'yaml';
import { createTestDatabase } from '../../support/database.js';
import { type ServerProcess, startServerProcess, stopServer, tempDir } from '../../support/server-process.js';

const ROOT = process.cwd();
const CONFORMANCE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const RUN_TIMEOUT_MS = 120_000;

type SpecVersion = '2025-11-25' | '2026-07-28';
const baselineOf = (version: SpecVersion) => path.join(ROOT, `test/e2e/mcp/mcp-conformance.${version}.baseline.yml`);

/** How each version's scenarios are selected, and the ones that apply to Parley: each must pass every check. */
const VERSIONS: Record<SpecVersion, { selection: string[]; passing: string[] }> = {
  '2025-11-25': { selection: ['--spec-version', '2025-11-25'], passing: ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'dns-rebinding-protection'] },
  '2026-07-28': {
    selection: ['--requirements', '2026-07-28'],
    passing: [
      'tools-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
      'http-header-validation',
      'input-required-result-unsupported-methods',
      'input-required-result-validate-input',
      // Runs no check against a server without the Tasks extension.
      'tasks-status-notifications',
    ],
  },
};
interface Baseline {
  server: string[];
  /** Scenarios that apply on /mcp only, where the question app's resource is served. */
  mcp_endpoint_passes: string[];
}
const baselineData = (version: SpecVersion) => parse(readFileSync(baselineOf(version), 'utf8')) as Baseline;

/** The version's expected failures on the endpoint: /mcp passes the scenarios its one resource makes apply. */
function expectedFailures(version: SpecVersion, external: boolean): string[] {
  const { server: failing, mcp_endpoint_passes: passes } = baselineData(version);
  return external ? failing.filter((scenario) => !passes.includes(scenario)) : failing;
}

/** The baseline file the suite gets for the endpoint (written for /mcp, as its expected failures differ). */
async function baselineFileFor(version: SpecVersion, external: boolean): Promise<string> {
  if (!external) return baselineOf(version);
  const file = path.join(await tempDir('parley-conformance-baseline-'), 'baseline.yml');
  await writeFile(file, stringify({ server: expectedFailures(version, true) }));
  return file;
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description: string;
  errorMessage?: string;
  details?: unknown;
}

interface SuiteRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Each scenario's checks, from the `server-<scenario>-<timestamp>/checks.json` files it wrote. */
  checks: Map<string, Check[]>;
}

async function runSuite(url: string, version: SpecVersion, external: boolean): Promise<SuiteRun> {
  const outputDir = await tempDir('parley-conformance-');
  const baseline = await baselineFileFor(version, external);
  const args = [CONFORMANCE, 'server', '--url', url, ...VERSIONS[version].selection, '--expected-failures', baseline, '--output-dir', outputDir];
  const env = { ...process.env, NODE_OPTIONS: '' };
  const { exitCode, stdout, stderr } = await new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      resolve({ exitCode: error ? (typeof code === 'number' ? code : -1) : 0, stdout, stderr });
    });
  });
  const checks = new Map<string, Check[]>();
  for (const entry of await readdir(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry)?.[1];
    if (scenario === undefined) throw new Error(`unexpected entry in the suite's output directory: ${entry}`);
    checks.set(scenario, JSON.parse(await readFile(path.join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return { exitCode, stdout, stderr, checks };
}

/** The checks of a scenario that the baseline check counts as failing (FAILURE and WARNING), said plainly. */
function failing(run: SuiteRun, scenario: string): string[] {
  const checks = run.checks.get(scenario);
  if (checks === undefined) return [`${scenario} did not run`];
  return checks
    .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
    .map((check) => `${check.id} ${check.status}: ${check.errorMessage ?? check.description} ${JSON.stringify(check.details ?? {})}`);
}

/** A loopback proxy to `target` that adds `Authorization: Bearer <token>` to every request. */
async function bearerProxy(target: URL, token: string): Promise<{ url: string; close(): Promise<void> }> {
  const proxy = http.createServer((incoming, outgoing) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: incoming.method, headers: { ...incoming.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp/session`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/** A RUNNING session's agent token, through the public REST API. */
async function sessionToken(baseUrl: string): Promise<string> {
  const workspace = await request(baseUrl).post('/api/v1/workspaces').send({ name: 'conformance' }).expect(201);
  const task = await request(baseUrl).post('/api/v1/tasks').send({ title: 'conformance', workspace_id: workspace.body.id }).expect(201);
  const session = await request(baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`).send({}).expect(201);
  await request(baseUrl).patch(`/api/v1/sessions/${session.body.id}`).send({ state: 'RUNNING' }).expect(200);
  return session.body.agent_token as string;
}

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess({ env: { DATABASE_URL: await createTestDatabase() } });
});
afterAll(async () => {
  if (server) await stopServer(server);
});

const ENDPOINTS = [
  ['/mcp', true, () => Promise.resolve({ url: `${server.baseUrl}/mcp`, close: () => Promise.resolve() })],
  ['/mcp/session (with the session agent\'s token)', false, async () => bearerProxy(new URL(`${server.baseUrl}/mcp/session`), await sessionToken(server.baseUrl))],
] as const;
const RUNS = ENDPOINTS.flatMap(([surface, external, endpoint]) => (['2025-11-25', '2026-07-28'] as const).map((version) => [surface, version, external, endpoint] as const));

describe.each(RUNS)('MCP conformance suite on %s at %s', (_surface, version, external, endpoint) => {
  let run: SuiteRun;
  const PASSING = [...VERSIONS[version].passing, ...(external ? baselineData(version).mcp_endpoint_passes : [])];
  const EXPECTED_FAILURES = expectedFailures(version, external);

  beforeAll(async () => {
    const target = await endpoint();
    try {
      run = await runSuite(target.url, version, external);
    } finally {
      await target.close();
    }
  }, RUN_TIMEOUT_MS + 60_000);

  it('runs every active server scenario, each either one that applies or in the baseline', () => {
    if (run.checks.size === 0) throw new Error(`the suite ran no scenario (exit ${run.exitCode}):\n${run.stderr}\n${run.stdout}`);
    expect([...run.checks.keys()].sort()).toEqual([...PASSING, ...EXPECTED_FAILURES].sort());
  });

  it.each(PASSING)('%s passes every check', (scenario) => {
    expect(failing(run, scenario)).toEqual([]);
  });

  it.each(EXPECTED_FAILURES)('%s (baseline) still fails, as the reason beside it says', (scenario) => {
    expect(failing(run, scenario)).not.toEqual([]);
  });

  it('the CLI itself exits 0 against the baseline', () => {
    // Its verdict on the baseline closes its output: stale entries and unexpected failures by name.
    const plain = run.stdout.replaceAll('\u001b', '').replace(/\[\d+m/g, ''); // without its colours
    const verdict = run.exitCode === 0 ? '' : plain.slice(Math.max(0, plain.search(/^(Stale baseline|Unexpected failures)/m)));
    expect({ exitCode: run.exitCode, verdict }).toEqual({ exitCode: 0, verdict: '' });
  });
});
