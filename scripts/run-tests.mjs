#!/usr/bin/env node
/**
 * `npm test [-- <jest arguments>]`, `npm run test:quick` (`--quick`: the first two phases only). Without
 * arguments: the unit and structure projects (seconds), then the in-process e2e project in two workers
 * (each file has its own database), then the projects whose files spawn processes, in four lanes side by
 * side — `faults` in two lanes (servers killed, stopped and starved, databases stopped and frozen: mostly
 * waiting), `processes` (the e2e files that spawn a server, the CLI, an agent, Chromium) and `python`
 * (the two of them that run Python suites) — each lane one file at a time with its own test PostgreSQL;
 * then, alone, the fault files ALONE names. The
 * Python virtual environments those files use are made in the background from the first phase on
 * (scripts/make-python-venvs.mjs). With
 * arguments (a path, `-t name`, `--selectProjects unit`): one jest run of exactly those.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const jest = path.join(path.dirname(createRequire(import.meta.url).resolve('jest/package.json')), 'bin', 'jest.js');
const env = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };

/**
 * The Node package.json pins (the `node` devDependency): npm scripts find it first on the PATH, and a
 * direct `node scripts/run-tests.mjs` under another Node runs the tests under it too.
 */
const pinnedNode = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url));
const node = existsSync(pinnedNode) ? pinnedNode : process.execPath;

/** Writes `stream`'s output line by line, each line prefixed: two lanes' lines never split each other. */
function prefixLines(stream, prefix, out) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    if (lines.length > 0) out.write(lines.map((line) => `${prefix}${line}\n`).join(''));
  });
  stream.on('end', () => pending && out.write(`${prefix}${pending}\n`));
}

const running = new Set();
let interrupted;
// Ctrl-C reaches the jest runs too (one process group); a signal sent to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = signal;
    for (const child of running) child.kill(signal);
  });
}

/** One jest run; in a lane (`name` given) its output is prefixed with the lane's name. */
function jestRun(args, name) {
  const lane = name !== undefined;
  const child = spawn(node, [jest, ...args], {
    stdio: lane ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: lane && process.stdout.isTTY ? { ...env, FORCE_COLOR: '1' } : env,
  });
  if (lane) {
    prefixLines(child.stdout, `[${name}] `, process.stdout);
    prefixLines(child.stderr, `[${name}] `, process.stderr);
  }
  running.add(child);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve(signal ? 1 : (code ?? 1));
    });
  });
}

/** Makes the Python virtual environments in the background, niced, so it only takes what the phases leave idle. */
function makePythonVenvsInBackground() {
  // Its failures (no python3-venv, no network) are the Python files' to report, with what to install.
  const child = spawn(node, [fileURLToPath(new URL('make-python-venvs.mjs', import.meta.url))], { stdio: 'ignore', detached: true });
  if (child.pid !== undefined) setPriority(child.pid, 10);
  return child;
}

const args = process.argv.slice(2);
const E2E_WORKERS = process.env.TEST_E2E_WORKERS ?? '2';
// `--quick` (npm run test:quick): the phases that need no process of their own, for before each commit.
const quick = args.length === 1 && args[0] === '--quick';
const full = args.length === 0;

/**
 * The fault files whose bounds are a few seconds of wall time on work another file's CPU can delay (the
 * outage's fail-fast probes and recovery, the delivery race's webhook timing): beside the processes lane
 * on a loaded machine they failed, alone they passed, so they run alone after the lanes.
 */
const ALONE = ['test/faults/database-outage.e2e-spec.ts', 'test/faults/delivery-race.e2e-spec.ts'];
/**
 * The longest fault files, in a lane of their own beside the other fault files: the two fault lanes
 * then take about as long as each other (their durations are in docs/testing.md).
 */
const LONG_FAULTS = ['test/faults/patroni-failover.e2e-spec.ts', 'test/faults/database-hang.e2e-spec.ts', 'test/faults/lease-recovery.e2e-spec.ts'];
/** The processes files that run a Python suite: the longest of that project, in a lane of their own. */
const PYTHON = ['test/e2e/client/python.e2e-spec.ts', 'test/e2e/operations/schemathesis.e2e-spec.ts'];
const escaped = (file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Jest arguments for exactly these files of one project (the paths first: `--selectProjects` takes every name after it). */
const only = (files, project) => [...files.map((file) => `${escaped(file)}$`), '--selectProjects', project];
/** Jest arguments for one project without these files. */
const without = (files, project) => ['--selectProjects', project, '--testPathIgnorePatterns', ...files.map(escaped)];

/** Each phase is one jest run, or lanes of jest runs side by side. */
const phases = [
  { name: 'unit and structure', lanes: [['--selectProjects', 'unit', 'structure']] },
  { name: 'e2e', lanes: [['--selectProjects', 'e2e', `--maxWorkers=${E2E_WORKERS}`]] },
  {
    name: 'faults beside processes',
    lanes: [only(LONG_FAULTS, 'faults'), without([...ALONE, ...LONG_FAULTS], 'faults'), without(PYTHON, 'processes'), only(PYTHON, 'processes')],
    laneNames: ['faults', 'faults-2', 'processes', 'python'],
  },
  { name: 'faults alone', lanes: [only(ALONE, 'faults')] },
];
const chosen = quick ? phases.slice(0, 2) : full ? phases : [{ name: 'jest', lanes: [args] }];

const venvs = full ? makePythonVenvsInBackground() : undefined;
const timings = [];
let status = 0;
for (const phase of chosen) {
  const started = Date.now();
  const statuses = await Promise.all(phase.lanes.map((laneArgs, index) => jestRun(laneArgs, phase.laneNames?.[index])));
  timings.push(`${phase.name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  status = statuses.find((laneStatus) => laneStatus !== 0) ?? 0;
  if (status !== 0 || interrupted) break;
}
if (chosen.length > 1) process.stdout.write(`phases: ${timings.join(', ')}\n`);
// A phase failed early: the venvs' pip installs (their process group) are not left running.
if (venvs?.pid !== undefined && venvs.exitCode === null && venvs.signalCode === null) {
  try {
    process.kill(-venvs.pid, 'SIGTERM');
  } catch {
    // It ended meanwhile.
  }
}
process.exit(interrupted ? 1 : status);

