/**
 * docs/rules.md states every rule id the code and the tests cite (D2, M5, N8b, L16, R2b, …), so a
 * reader can look each one up without the source specification. This check reads files only — no
 * database, no app — and fails with every cited-but-undefined id and the files citing it, and with
 * every test file docs/rules.md links to that does not exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();
const RULES = path.join(ROOT, 'docs', 'rules.md');

/**
 * A rule id: one family letter, a number from 1 to 19 without a leading zero (the sources' highest
 * is L16), an optional lower-case suffix (L1c, N8b), as a whole token. The families are the ones the source specification uses —
 * A access, D bundle determinism, G workflow guard (retired), L listing, M task resolution, N answers,
 * P the resolution operation, R resolution, S surface placement, T list_tasks, W web client, X cancel
 * (retired) — except C (the upstream settings catalog, which Parley has no counterpart of), whose C1
 * would collide with Unicode's "C0/C1 controls". A word character on either side (SIGUSR2, W3C,
 * MinuteP99, D2_ORDER) or a `%` before (the percent-encoded `%A1`) means it is not an id; so do the
 * letters outside the families (V8, H1), a zero (A0, N08) and a number above 19 (the percentile P99).
 */
const RULE_ID = /(?<![\w%])[ADGLMNPQRSTWX](?:1[0-9]|[1-9])[a-z]?(?!\w)/g;

/** A definition in docs/rules.md: a level-3 heading that starts with the id (`### N8b — …`). */
const DEFINITION = /^### ([A-Z](?:1[0-9]|[1-9])[a-z]?)(?= |$)/gm;

/** A relative link from docs/rules.md into the repository (`[test/x.e2e-spec.ts](../test/x.e2e-spec.ts)`). */
const RELATIVE_LINK = /\]\((\.\.\/[^)\s#]+)(?:#[^)]*)?\)/g;

const SOURCE_DIRS = ['libs', 'apps', 'test', 'bench'];
const SOURCE_FILE = /\.(ts|tsx|mjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);
/** This file: its examples of what is and is not an id are not citations. */
const SELF = path.join(ROOT, 'test', 'structure', 'rule-ids.spec.ts');

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED_DIRS.has(name)) return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return SOURCE_FILE.test(name) ? [full] : [];
  });
}

/** Every markdown page under `dir`, its subfolders (docs/api/…) included. */
function markdownPages(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return markdownPages(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

function citingFiles(): string[] {
  const docs = markdownPages(path.join(ROOT, 'docs')).filter((file) => file !== RULES);
  const sources = SOURCE_DIRS.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).filter((file) => file !== SELF);
  return [...sources, path.join(ROOT, 'README.md'), ...docs];
}

/** Every cited id with the files (relative to the repository) that cite it. */
function citations(): Map<string, Set<string>> {
  const cited = new Map<string, Set<string>>();
  for (const file of citingFiles()) {
    for (const [id] of readFileSync(file, 'utf8').matchAll(RULE_ID)) {
      const files = cited.get(id) ?? new Set<string>();
      files.add(path.relative(ROOT, file));
      cited.set(id, files);
    }
  }
  return cited;
}

function rulesText(): string {
  return existsSync(RULES) ? readFileSync(RULES, 'utf8') : '';
}

describe('rule ids (docs/rules.md)', () => {
  it('the pattern matches ids and nothing that merely looks like one', () => {
    const matches = (text: string) => [...text.matchAll(RULE_ID)].map(([id]) => id);
    expect(matches('spec D2, M5 + A1–A5, N6–N8b (L16); R2b/R2c; T1/T2; W4a.')).toEqual(['D2', 'M5', 'A1', 'A5', 'N6', 'N8b', 'L16', 'R2b', 'R2c', 'T1', 'T2', 'W4a']);
    expect(matches('V8 heap, H1, A0, %ED%A1%80, SIGUSR2, W3C, D2_ORDER, P99, L20, C1 controls, 0xD2, R2D2, N08')).toEqual([]);
  });

  it('every cited rule id is defined in docs/rules.md', () => {
    const defined = new Set([...rulesText().matchAll(DEFINITION)].map(([, id]) => id));
    const undefinedIds = [...citations()]
      .filter(([id]) => !defined.has(id))
      .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
      .map(([id, files]) => `${id}: ${[...files].sort().join(', ')}`);
    expect(undefinedIds).toEqual([]);
  });

  it('every file docs/rules.md links to exists', () => {
    const text = rulesText();
    expect(text).not.toBe('');
    const targets = new Set([...text.matchAll(RELATIVE_LINK)].map(([, target]) => path.relative(ROOT, path.resolve(path.dirname(RULES), target))));
    expect(targets.size).toBeGreaterThan(0);
    const missing = [...targets].filter((target) => !existsSync(path.join(ROOT, target))).sort();
    expect(missing).toEqual([]);
  });
});
