/**
 * Every relative link of README.md and docs/**\/*.md resolves: `[text](target)` names a file or
 * directory that exists, relative to the linking file, and its `#anchor`, when it has one, is the
 * GitHub slug of a heading of the target page. Links to other schemes (http, https, mailto) are not
 * checked, nor anything inside a fenced code block. Reads files only — no database, no app.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();

/** `[text](target)` and `![alt](target)`, the text holding at most one level of brackets; an optional title after the target. */
const LINK = /\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
/** A target with a scheme (`https:`, `mailto:`) is not a file of the repository. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/** The lines of a markdown text outside its fenced code blocks (the others become empty, so line numbers hold). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const opening = FENCE.exec(line);
    if (fence === undefined) {
      if (opening) {
        fence = opening[1];
        return '';
      }
      return line;
    }
    if (opening && opening[1]?.[0] === fence[0] && (opening[1]?.length ?? 0) >= fence.length && line.trim() === opening[1]) fence = undefined;
    return '';
  });
}

/**
 * GitHub's slug of a heading: its text as rendered (links by their text, no markup), lower case,
 * everything but letters, digits, spaces, hyphens and underscores dropped, each space a hyphen.
 */
function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[((?:[^[\]]|\[[^\]]*\])*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings: a repeated slug gets -1, -2, … in order. */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = HEADING.exec(line);
    if (!heading) continue;
    const slug = githubSlug(heading[2] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${String(count)}`);
  }
  return anchors;
}

/** The relative link targets of a markdown text, with their line numbers. */
function relativeLinks(text: string): { line: number; target: string }[] {
  return proseLines(text).flatMap((line, index) =>
    [...line.matchAll(LINK)].map(([, target]) => ({ line: index + 1, target: target ?? '' })).filter(({ target }) => !SCHEME.test(target)),
  );
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

/** Every broken link of `files`, as `file:line: target — why`. */
function brokenLinks(files: readonly string[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let known = anchorsOf.get(file);
    if (known === undefined) {
      known = headingAnchors(readFileSync(file, 'utf8'));
      anchorsOf.set(file, known);
    }
    return known;
  };
  return files.flatMap((file) =>
    relativeLinks(readFileSync(file, 'utf8')).flatMap(({ line, target }) => {
      const where = `${path.relative(ROOT, file)}:${String(line)}: ${target}`;
      const hash = target.indexOf('#');
      const filePart = hash === -1 ? target : target.slice(0, hash);
      const anchor = hash === -1 ? undefined : target.slice(hash + 1);
      const resolved = filePart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(filePart));
      if (!existsSync(resolved)) return [`${where} — no such file or directory`];
      if (anchor === undefined) return [];
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return [`${where} — an anchor on something that is not a markdown page`];
      if (!anchors(resolved).has(decodeURIComponent(anchor))) return [`${where} — no heading of ${path.relative(ROOT, resolved)} has this anchor`];
      return [];
    }),
  );
}

describe('links of README.md and docs/', () => {
  it('slugs headings the way GitHub does', () => {
    expect(githubSlug('Rate limits')).toBe('rate-limits');
    expect(githubSlug('The respond contract — `POST /api/v1/clarification/:id/respond`')).toBe('the-respond-contract--post-apiv1clarificationidrespond');
    expect(githubSlug('Libraries, and why')).toBe('libraries-and-why');
    expect(githubSlug('Where Parley departs from the spec and the baseline')).toBe('where-parley-departs-from-the-spec-and-the-baseline');
    expect(githubSlug('A5a — the 404 holds on all four endpoints, including /wait')).toBe('a5a--the-404-holds-on-all-four-endpoints-including-wait');
    expect(githubSlug('snake_case and [a link](x.md) in Ünïcode')).toBe('snake_case-and-a-link-in-ünïcode');
    expect([...headingAnchors('# Notes\n## Notes\n```\n# Notes\n```\n### Notes ##\n')]).toEqual(['notes', 'notes-1', 'notes-2']);
  });

  it('finds relative links outside fenced code blocks only', () => {
    const text = [
      'See [Rate limits](configuration.md#rate-limits), [`schema.graphql`](../schema.graphql) and ![shot](screenshots/a.png "A").',
      '[web](https://example.com), [mail](mailto:a@example.com), [here](#top).',
      '```sh',
      'echo [not](a-link.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(text)).toEqual([
      { line: 1, target: 'configuration.md#rate-limits' },
      { line: 1, target: '../schema.graphql' },
      { line: 1, target: 'screenshots/a.png' },
      { line: 2, target: '#top' },
    ]);
  });

  it('every relative link resolves, and every anchor names a heading of its page', () => {
    const files = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];
    expect(files.length).toBeGreaterThan(10);
    expect(brokenLinks(files)).toEqual([]);
  });
});
