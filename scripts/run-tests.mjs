#!/usr/bin/env node
/**
 * `npm test [-- <jest arguments>]`, `npm run test:quick` (`--quick`: the first two phases only). Without arguments: the unit and structure projects (seconds),
 * then the in-process e2e project in two workers (each file has its own database), then, one file at
 * a time, the e2e files that spawn processes and the fault tests (they spawn and kill server
 * processes and stop databases: nothing else runs beside them). With arguments (a path, `-t name`,
 * `--selectProjects unit`): one jest run of exactly those.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
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

function run(args) {
  const { status, signal } = spawnSync(node, [jest, ...args], { stdio: 'inherit', env });
  if (signal) process.kill(process.pid, signal);
  return status ?? 1;
}

const args = process.argv.slice(2);
const E2E_WORKERS = process.env.TEST_E2E_WORKERS ?? '2';
const inProcess = [['--selectProjects', 'unit', 'structure'], ['--selectProjects', 'e2e', `--maxWorkers=${E2E_WORKERS}`]];
// `--quick` (npm run test:quick): the phases that need no process of their own, for before each commit.
const quick = args.length === 1 && args[0] === '--quick';
const phases = quick ? inProcess : args.length > 0 ? [args] : [...inProcess, ['--selectProjects', 'processes', 'faults']];
for (const phase of phases) {
  const status = run(phase);
  if (status !== 0) process.exit(status);
}
