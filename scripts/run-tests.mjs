#!/usr/bin/env node
/**
 * `npm test [-- <jest arguments>]`. Without arguments: the unit and structure projects (seconds),
 * then the e2e project, then the fault tests on their own (they spawn and kill server processes and
 * stop the database: nothing else runs beside them). With arguments (a path, `-t name`, `--selectProjects unit`): one jest run of
 * exactly those.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const jest = path.join(path.dirname(createRequire(import.meta.url).resolve('jest/package.json')), 'bin', 'jest.js');
const env = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };

function run(args) {
  const { status, signal } = spawnSync(process.execPath, [jest, ...args], { stdio: 'inherit', env });
  if (signal) process.kill(process.pid, signal);
  return status ?? 1;
}

const args = process.argv.slice(2);
const phases = args.length > 0 ? [args] : [['--selectProjects', 'unit', 'structure'], ['--selectProjects', 'e2e'], ['--selectProjects', 'faults']];
for (const phase of phases) {
  const status = run(phase);
  if (status !== 0) process.exit(status);
}
