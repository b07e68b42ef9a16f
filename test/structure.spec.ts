/**
 * Spec 002 P1 — "There SHALL be exactly one claim mechanism in the codebase" — asserted
 * structurally, as the Verification notes require: a behavioural test passes just as well with a
 * dormant second mechanism present.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startApp, type TestApp } from './support/app.js';

const ROOT = process.cwd();
const CLARIFICATION_SRC = path.join(ROOT, 'libs/clarification/src');
const RESOLVER = path.join(CLARIFICATION_SRC, 'resolve-bundle.service.ts');
const VALIDATION = path.join(CLARIFICATION_SRC, 'resolution.validation.ts');
const REPOSITORY = path.join(CLARIFICATION_SRC, 'claim.repository.ts');
const DELIVERY = path.join(CLARIFICATION_SRC, 'delivery.service.ts');

/** Every regular file under `dir`, recursively (paths absolute). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('P1: one claim mechanism (structure)', () => {
  describe('no clarification_resolutions table', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(async () => {
      await t.close();
    });

    it('after every migration has run, information_schema has no clarification_resolutions table (the schema itself is there)', async () => {
      const { rows } = await t.db.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      const tables = rows.map((row) => row.table_name);
      expect(tables).toEqual(expect.arrayContaining(['task_session_messages', 'task_session_turns', 'task_sessions']));
      expect(tables).not.toContain('clarification_resolutions');
      expect(tables.filter((name) => /resolution/i.test(name))).toEqual([]);
    });

    it('no file under migrations/ mentions clarification_resolutions', () => {
      const files = filesUnder(path.join(ROOT, 'migrations'));
      expect(files.length).toBeGreaterThan(0);
      const offenders = files.filter((file) => /clarification_resolutions/i.test(readFileSync(file, 'utf8')));
      expect(offenders).toEqual([]);
    });
  });

  describe('the resolution path contains no claim SQL of its own', () => {
    it.each([
      ['resolve-bundle.service.ts', RESOLVER],
      ['resolution.validation.ts', VALIDATION],
    ])('%s has no UPDATE, INSERT, responding, FOR UPDATE, pg_advisory, or raw query', (_name, file) => {
      const source = readFileSync(file, 'utf8');
      expect(source.length).toBeGreaterThan(0);
      for (const forbidden of [/\bUPDATE\b/, /\bINSERT\b/, /responding/i, /FOR\s+UPDATE/i, /pg_advisory/i, /\.query\s*\(/, /clarification_resolutions/i]) {
        expect({ file: path.basename(file), match: forbidden.exec(source)?.[0] }).toEqual({ file: path.basename(file), match: undefined });
      }
    });

    it('resolve-bundle.service.ts reaches the claim through the winner\'s delivery path exactly once', () => {
      const source = readFileSync(RESOLVER, 'utf8');
      expect(occurrences(source, 'claimAndDeliver(')).toBe(1);
      expect(source).toMatch(/this\.delivery\.claimAndDeliver\(/);
      expect(occurrences(source, 'completeActiveBundle(')).toBe(0);
    });

    it('completeActiveBundle( appears under libs/ only in its definition and in the one delivery path that calls it', () => {
      const sources = filesUnder(path.join(ROOT, 'libs')).filter((file) => /\.(ts|js|mjs|cjs)$/.test(file));
      expect(sources).toContain(REPOSITORY);
      const users = sources.filter((file) => readFileSync(file, 'utf8').includes('completeActiveBundle(')).sort();
      expect(users).toEqual([REPOSITORY, DELIVERY].sort());
      const repository = readFileSync(REPOSITORY, 'utf8');
      expect(occurrences(repository, 'completeActiveBundle(')).toBe(1);
      expect(repository).toMatch(/^\s+completeActiveBundle\(request: ClaimRequest/m);
      expect(occurrences(readFileSync(DELIVERY, 'utf8'), 'completeActiveBundle(')).toBe(1);
    });

    it('claimAndDeliver( is called only by ResolveBundle (every surface resolves through it)', () => {
      const sources = filesUnder(path.join(ROOT, 'libs')).filter((file) => /\.ts$/.test(file));
      const callers = sources.filter((file) => /\.claimAndDeliver\(/.test(readFileSync(file, 'utf8')));
      expect(callers).toEqual([RESOLVER]);
    });
  });
});
