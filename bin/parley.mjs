#!/usr/bin/env node
// The `parley` command: runs the built CLI, building the server first only when its output is missing
// or older than a TypeScript source (so an ordinary call never waits for the compiler).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/apps/server/src/cli.js');
const SOURCES = ['apps/server/src', 'libs', 'migrations'];

function newestSource(directory) {
  let newest = 0;
  if (!existsSync(directory)) return newest;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function stale() {
  if (!existsSync(cli)) return true;
  // Only a checkout has sources: an installed package runs its dist as shipped.
  const newest = Math.max(...SOURCES.map((source) => newestSource(path.join(root, source))));
  return newest > statSync(cli).mtimeMs;
}

if (stale()) {
  process.stderr.write('parley: building the server (dist/ is missing or older than its sources)…\n');
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
await import(pathToFileURL(cli).href);
