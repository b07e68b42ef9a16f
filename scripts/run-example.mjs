#!/usr/bin/env node
/**
 * `npm run example -- <name>`: runs examples/<name> (built into dist/examples by the preexample
 * script) against PARLEY_URL (default http://127.0.0.1:3000) with PARLEY_TOKEN.
 * `npm run example -- python/<name>`: runs examples/python/<name>/main.py with the Python client's
 * virtual environment, made on first use from its pinned requirements (scripts/python-venv.mjs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonClientPython } from './python-venv.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const examplesIn = (dir) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !['shared', 'python', '__pycache__'].includes(entry.name))
    .map((entry) => entry.name);
const names = [...examplesIn('examples'), ...examplesIn('examples/python').map((name) => `python/${name}`)];
const name = process.argv[2];
if (!name || !names.includes(name)) {
  process.stderr.write(`usage: npm run example -- <${names.join('|')}>\n`);
  process.exit(2);
}

function run(file, args, env = process.env) {
  const { status, signal } = spawnSync(file, args, { stdio: 'inherit', env });
  if (signal) process.kill(process.pid, signal);
  process.exit(status ?? 1);
}

if (name.startsWith('python/')) {
  let python;
  try {
    python = await pythonClientPython(() => process.stderr.write('making the Python environment (first use: pip installs the pinned packages)…\n'));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const source = path.join(root, 'packages/python/src');
  const pythonPath = [source, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter);
  run(python, [path.join(root, 'examples', name, 'main.py'), ...process.argv.slice(3)], { ...process.env, PYTHONPATH: pythonPath });
}

const main = `${root}dist/examples/${name}/main.js`;
if (!existsSync(main)) {
  process.stderr.write(`${main} is missing: run npm run build:examples\n`);
  process.exit(1);
}
run(process.execPath, [main, ...process.argv.slice(3)]);
