#!/usr/bin/env node
/**
 * Rewrites every import of another lib's index by relative path (`../../tasks/src/index.js`,
 * `../libs/tasks/src/index.js`, …) to its subpath import (`#tasks`, package.json "imports"), in
 * apps/, libs/, test/ and bench/. Imports inside one lib stay relative; deep imports past an index
 * are left alone (the lint rule refuses them). Run once after the branches are merged:
 *   node scripts/use-subpath-imports.mjs [--check]
 * With --check nothing is written and the exit code is 1 when a file would change.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const LIBS = path.join(ROOT, 'libs');
const DIRECTORIES = ['apps', 'libs', 'test', 'bench'];
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\2/g;
const check = process.argv.includes('--check');

const subpaths = new Set(Object.keys(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).imports ?? {}));

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.(ts|tsx|mts)$/.test(name) ? [full] : [];
  });
}

/** The lib whose index a resolved path names, or undefined. */
function indexedLib(resolved) {
  const parts = path.relative(LIBS, resolved).split(path.sep);
  if (parts.length !== 3 || parts[0] === '..' || parts[1] !== 'src' || !/^index\.(js|ts)$/.test(parts[2])) return undefined;
  return parts[0];
}

function libOf(file) {
  const relative = path.relative(LIBS, file);
  return relative.startsWith('..') ? undefined : relative.split(path.sep)[0];
}

const changed = [];
for (const file of DIRECTORIES.flatMap((dir) => sources(path.join(ROOT, dir)))) {
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(SPECIFIER, (whole, prefix, quote, specifier) => {
    const lib = indexedLib(path.resolve(path.dirname(file), specifier));
    if (lib === undefined || lib === libOf(file) || !subpaths.has(`#${lib}`)) return whole;
    return `${prefix}${quote}#${lib}${quote}`;
  });
  if (rewritten === text) continue;
  changed.push(path.relative(ROOT, file));
  if (!check) writeFileSync(file, rewritten);
}
process.stdout.write(`${check ? 'would rewrite' : 'rewrote'} ${changed.length} files${changed.length ? `:\n  ${changed.join('\n  ')}` : ''}\n`);
if (check && changed.length > 0) process.exitCode = 1;
