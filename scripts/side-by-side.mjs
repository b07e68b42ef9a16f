#!/usr/bin/env node
/**
 * `node scripts/side-by-side.mjs <npm script>…`: runs the npm scripts at once (the type-check and lint
 * before the tests each use one core) and fails when any of them fails, after all have ended.
 */
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const statuses = await Promise.all(
  process.argv.slice(2).map(
    (script) =>
      new Promise((resolve) => {
        const child = spawn(npm, ['run', '--silent', script], { stdio: 'inherit' });
        child.once('error', () => resolve(1));
        child.once('close', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
      }),
  ),
);
process.exit(statuses.find((status) => status !== 0) ?? 0);
