/**
 * Library boundaries (docs/architecture.md, "The lib graph"): a lib reaches another lib only through its `index.ts` (relative
 * `../../<lib>/src/index.js` or the `#<lib>` subpath import), and the core libs never import a
 * surface lib — surfaces depend on the core, not the other way round. A lib's testing entry
 * (`#<lib>/testing`, its internals for tests) is for test/ and bench/ only: no lib or app imports it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Libs that expose the core to one client protocol; the core must not depend on them. One list,
 * read by this rule and by test/structure/structure.spec.ts. (The browser inbox, apps/web, is no lib:
 * it is kept to dependency-free modules below.)
 */
export const SURFACE_LIBS = new Set(JSON.parse(readFileSync(new URL('./surface-libs.json', import.meta.url), 'utf8')));

const ROOT = path.resolve(import.meta.dirname, '..');
const LIBS = path.join(ROOT, 'libs');

/** The lib a path lies in (`libs/<lib>/…`), or undefined. */
function libOf(file) {
  const relative = path.relative(LIBS, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep)[0];
}

/**
 * The lib a specifier names, whether it names that lib's index, and whether it names the lib's
 * testing entry (`#<lib>/testing`); undefined when it is no lib.
 */
function target(specifier, importer) {
  const subpath = /^#([\w-]+)(\/testing)?$/.exec(specifier);
  if (subpath) return { lib: subpath[1], index: subpath[2] === undefined, testing: subpath[2] !== undefined };
  if (!specifier.startsWith('.')) return undefined;
  const resolved = path.resolve(path.dirname(importer), specifier);
  const lib = libOf(resolved);
  if (lib === undefined) return undefined;
  const index = path.relative(path.join(LIBS, lib), resolved).replace(/\.(js|ts)$/, '') === path.join('src', 'index');
  const testing = path.relative(path.join(LIBS, lib), resolved).replace(/\.(js|ts)$/, '') === path.join('src', 'testing');
  return { lib, index, testing };
}

/** @type {import('eslint').Rule.RuleModule} */
export const libBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'libs import each other only through their index, and the core never imports a surface lib' },
    schema: [],
    messages: {
      deep: "'{{specifier}}' reaches past libs/{{lib}}/src/index.ts: import the lib through its index",
      surface: "core lib '{{from}}' must not import surface lib '{{lib}}'",
      testing: "'{{specifier}}' is libs/{{lib}}'s testing entry: only test/ and bench/ import it",
    },
  },
  create(context) {
    const importer = context.filename;
    const from = libOf(importer);
    const inApps = !path.relative(path.join(ROOT, 'apps'), importer).startsWith('..');
    // The browser bundle cannot load a lib's index (it pulls in Nest): it imports dependency-free modules.
    const inBrowser = !path.relative(path.join(ROOT, 'apps', 'web'), importer).startsWith('..');
    if ((from === undefined && !inApps) || inBrowser) return {};
    const check = (node) => {
      if (!node || node.type !== 'Literal' || typeof node.value !== 'string') return;
      const reached = target(node.value, importer);
      if (!reached) return;
      if (reached.testing) {
        context.report({ node, messageId: 'testing', data: { specifier: node.value, lib: reached.lib } });
        return;
      }
      if (reached.lib === from) return;
      if (!reached.index) context.report({ node, messageId: 'deep', data: { specifier: node.value, lib: reached.lib } });
      else if (from !== undefined && !SURFACE_LIBS.has(from) && SURFACE_LIBS.has(reached.lib)) {
        context.report({ node, messageId: 'surface', data: { from, lib: reached.lib } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
