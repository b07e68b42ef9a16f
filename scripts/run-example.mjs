#!/usr/bin/env node
/**
 * `npm run example -- <name>`: runs examples/<name> (built into dist/examples by the preexample
 * script) against PARLEY_URL (default http://127.0.0.1:3000) with PARLEY_TOKEN.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const names = readdirSync(new URL('../examples', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
  .map((entry) => entry.name);
const name = process.argv[2];
if (!name || !names.includes(name)) {
  process.stderr.write(`usage: npm run example -- <${names.join('|')}>\n`);
  process.exit(2);
}
const main = `${root}dist/examples/${name}/main.js`;
if (!existsSync(main)) {
  process.stderr.write(`${main} is missing: run npm run build:examples\n`);
  process.exit(1);
}
const { status, signal } = spawnSync(process.execPath, [main, ...process.argv.slice(3)], { stdio: 'inherit' });
if (signal) process.kill(process.pid, signal);
process.exit(status ?? 1);
