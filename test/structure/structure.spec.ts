/**
 * P1 — "There SHALL be exactly one claim mechanism in the codebase" — asserted
 * structurally, as the Verification notes require: a behavioural test passes just as well with a
 * dormant second mechanism present.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startApp, type TestApp } from '../support/app.js';

const ROOT = process.cwd();
const CLARIFICATION_SRC = path.join(ROOT, 'libs/clarification/src');
const RESOLVER = path.join(CLARIFICATION_SRC, 'resolve/resolve-bundle.service.ts');
const VALIDATION = path.join(CLARIFICATION_SRC, 'resolve/resolution.validation.ts');
const REPOSITORY = path.join(CLARIFICATION_SRC, 'claim/claim.repository.ts');
const CLAIM_SERVICE = path.join(CLARIFICATION_SRC, 'delivery/claim.service.ts');
const DELIVERY = path.join(CLARIFICATION_SRC, 'delivery/delivery.service.ts');

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

    it('completeActiveBundle( appears under libs/ only in its definition and in the one claim service that calls it', () => {
      const sources = filesUnder(path.join(ROOT, 'libs')).filter((file) => /\.(ts|js|mjs|cjs)$/.test(file));
      expect(sources).toContain(REPOSITORY);
      const users = sources.filter((file) => readFileSync(file, 'utf8').includes('completeActiveBundle(')).sort();
      expect(users).toEqual([REPOSITORY, CLAIM_SERVICE].sort());
      const repository = readFileSync(REPOSITORY, 'utf8');
      expect(occurrences(repository, 'completeActiveBundle(')).toBe(1);
      expect(repository).toMatch(/^\s+async completeActiveBundle\(manager: EntityManager, request: ClaimRequest/m);
      expect(occurrences(readFileSync(CLAIM_SERVICE, 'utf8'), 'completeActiveBundle(')).toBe(1);
    });

    it('the claim statement runs only in the claim repository, in the transaction the claim service owns (the repository calls nothing back)', () => {
      const sources = filesUnder(path.join(ROOT, 'libs')).filter((file) => /\.ts$/.test(file));
      expect(sources.filter((file) => /\bCLAIM\.run\b/.test(readFileSync(file, 'utf8')))).toEqual([REPOSITORY]);
      const repository = codeOf(REPOSITORY);
      expect(repository).not.toMatch(/\binTransaction\b|\.transaction\(|=>\s*ClaimPlan|\bseal\b|\bcastBallot\b/);
      const claim = codeOf(CLAIM_SERVICE);
      expect(claim).toMatch(/inTransaction\(this\.dataSource/);
      expect(claim).not.toMatch(/\bas ClaimPlan\b/);
    });

    it('the claim service is called only by the winner\'s delivery path', () => {
      const sources = filesUnder(path.join(ROOT, 'libs')).filter((file) => /\.ts$/.test(file));
      expect(sources.filter((file) => /\bClaimService\b/.test(codeOf(file))).sort()).toEqual(
        [CLAIM_SERVICE, DELIVERY, path.join(CLARIFICATION_SRC, 'clarification.module.ts')].sort(),
      );
    });

    it('claimAndDeliver( is called only by ResolveBundle (every surface resolves through it)', () => {
      const sources = filesUnder(path.join(ROOT, 'libs')).filter((file) => /\.ts$/.test(file));
      const callers = sources.filter((file) => /\.claimAndDeliver\(/.test(readFileSync(file, 'utf8')));
      expect(callers).toEqual([RESOLVER]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Boundaries: SQL lives in repositories, libs meet at their index, surfaces resolve
// through ResolveBundleService.
// ---------------------------------------------------------------------------------------------

const LIBS = path.join(ROOT, 'libs');
const LIB_NAMES = readdirSync(LIBS).filter((name) => statSync(path.join(LIBS, name)).isDirectory()).sort();
/** Libs that expose the core to one client protocol (eslint/lib-boundaries.js says the same). */
/** The surface libs, from the one list the lint rule reads too. */
const SURFACE_LIBS = JSON.parse(readFileSync(path.join(ROOT, 'eslint/surface-libs.json'), 'utf8')) as string[];
const sourceFiles = (dir: string) => filesUnder(dir).filter((file) => /\.tsx?$/.test(file) && !/\.(e2e-)?spec\.ts$/.test(file));
const relative = (file: string) => path.relative(ROOT, file);

/** The code of a file without its comments (so prose about SQL does not count as SQL). */
function codeOf(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

/** Every module specifier a file imports or re-exports. */
function specifiersOf(file: string): string[] {
  const code = codeOf(file);
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)].map((match) => match[1]);
}

/** The lib a specifier of `file` lands in, and whether it is that lib's index (`#<lib>/testing` is not). */
function libTarget(file: string, specifier: string): { lib: string; index: boolean } | undefined {
  const subpath = /^#([\w-]+)(\/testing)?$/.exec(specifier);
  if (subpath) return { lib: subpath[1], index: subpath[2] === undefined };
  if (!specifier.startsWith('.')) return undefined;
  const parts = path.relative(LIBS, path.resolve(path.dirname(file), specifier)).split(path.sep);
  if (parts[0] === '..' || parts[0] === undefined) return undefined;
  return { lib: parts[0], index: parts.length === 3 && parts[1] === 'src' && /^index\.(js|ts)$/.test(parts[2]) };
}

const libOf = (file: string) => path.relative(LIBS, file).split(path.sep)[0];

describe('boundaries', () => {
  const SQL = /\b(SELECT\s|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|LISTEN\s|NOTIFY\s|pg_advisory\w*|pg_notify)|\.query\s*[<(]|createQueryBuilder\(/;
  /**
   * The persistence lib's own plumbing, which is the database layer rather than a user of it: the
   * migration lock on its dedicated connection, the listener's LISTEN and probe, the query helper,
   * and the lease liveness fragment.
   */
  const DATABASE_PLUMBING = [
    'libs/persistence/src/connection/database.ts',
    'libs/persistence/src/connection/database-listener.ts',
    'libs/persistence/src/lease/process-lease.ts',
    'libs/persistence/src/query/query-rows.ts',
    'libs/persistence/src/query/named-statement.ts',
  ];

  it('SQL appears only in *.repository.ts and *.sql.ts (and the persistence plumbing)', () => {
    const files = [...sourceFiles(LIBS), ...sourceFiles(path.join(ROOT, 'apps/server'))];
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .filter((file) => !/\.(repository|sql)\.ts$/.test(file) && !DATABASE_PLUMBING.includes(relative(file)))
      .filter((file) => SQL.test(codeOf(file)))
      .map(relative);
    expect(offenders).toEqual([]);
    // The detector does see SQL: the repositories are full of it.
    expect(SQL.test(codeOf(path.join(LIBS, 'tasks/src/task/task.repository.ts')))).toBe(true);
  });

  it('no lib reaches past another lib’s index (apps/server included)', () => {
    const files = [...sourceFiles(LIBS), ...sourceFiles(path.join(ROOT, 'apps/server'))];
    const deep = files.flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => {
          const target = libTarget(file, specifier);
          return target !== undefined && target.lib !== libOf(file) && !target.index;
        })
        .map((specifier) => `${relative(file)} → ${specifier}`),
    );
    expect(deep).toEqual([]);
  });

  it('the core libs never import a surface lib, and tasks never imports clarification (no cycle)', () => {
    const edges = sourceFiles(LIBS).flatMap((file) =>
      specifiersOf(file).flatMap((specifier) => {
        const target = libTarget(file, specifier);
        return target && target.lib !== libOf(file) ? [[libOf(file), target.lib] as const] : [];
      }),
    );
    expect(edges.length).toBeGreaterThan(20);
    expect(edges.filter(([from, to]) => !SURFACE_LIBS.includes(from) && SURFACE_LIBS.includes(to))).toEqual([]);
    expect(edges.filter(([from, to]) => from === 'tasks' && to === 'clarification')).toEqual([]);
  });

  it('the activeness rule derives the terminal session states from session-state.ts (no second literal)', () => {
    const rule = codeOf(path.join(LIBS, 'tasks/src/task/activeness.sql.ts'));
    expect(rule).toMatch(/TERMINAL_SESSION_STATES/);
    expect(rule).not.toMatch(/'COMPLETED'|'FAILED'|'CANCELLED'/);
  });

  it('spec M5 (which task a bundle belongs to) is written once, in bundle-task.sql.ts; the rest build from it', () => {
    const files = [...sourceFiles(LIBS), ...sourceFiles(path.join(ROOT, 'apps/server'))];
    const writing = files.filter((file) => /NULLIF\(/.test(codeOf(file))).map(relative);
    expect(writing).toEqual(['libs/tasks/src/task/bundle-task.sql.ts']);
    const building = files.filter((file) => /\bbundleTaskIdSql\(/.test(codeOf(file))).map(relative).sort();
    expect(building).toEqual([
      'libs/clarification/src/bundle/bundle.repository.ts',
      'libs/clarification/src/lifecycle/bundle-lifecycle.repository.ts',
      'libs/tasks/src/task/activeness.sql.ts',
      'libs/tasks/src/task/bundle-task.sql.ts',
    ]);
  });

  it('nest-cli.json and the package.json "imports" map list every lib (and clarification\'s testing entry)', () => {
    const nest = JSON.parse(readFileSync(path.join(ROOT, 'nest-cli.json'), 'utf8')) as { projects: Record<string, { type: string; root: string }> };
    const listed = Object.values(nest.projects).filter((project) => project.type === 'library').map((project) => project.root).sort();
    expect(listed).toEqual(LIB_NAMES.map((name) => `libs/${name}`));
    const imports = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, { types: string; default: string }> }).imports;
    expect(imports).toEqual({
      ...Object.fromEntries(LIB_NAMES.map((name) => [`#${name}`, { types: `./libs/${name}/src/index.ts`, default: `./dist/libs/${name}/src/index.js` }])),
      '#clarification/testing': { types: './libs/clarification/src/testing.ts', default: './dist/libs/clarification/src/testing.js' },
    });
  });

  it('the testing entry (#clarification/testing) is imported only by test/ and bench/, never by a lib or an app', () => {
    const files = [...filesUnder(LIBS), ...filesUnder(path.join(ROOT, 'apps'))].filter((file) => /\.tsx?$/.test(file));
    const importing = files
      .filter((file) => specifiersOf(file).some((specifier) => /^#[\w-]+\/testing$/.test(specifier) || /(^|\/)src\/testing(\.js)?$/.test(specifier)))
      .map(relative);
    expect(importing).toEqual([]);
  });

  it('every surface that answers resolves through ResolveBundleService; none reaches the claim or delivery itself', () => {
    const answering = ['libs/clarification/src/http/clarification.controller.ts', 'libs/graphql/src/resolvers/answer.resolver.ts', 'libs/mcp/src/external/external-tools.ts', 'libs/decisions/src/command.service.ts'];
    for (const file of answering) expect({ file, resolves: /\bResolveBundleService\b/.test(codeOf(path.join(ROOT, file))) }).toEqual({ file, resolves: true });
    const outsideCore = sourceFiles(LIBS).filter((file) => libOf(file) !== 'clarification');
    const reachingPast = outsideCore
      .filter((file) => /\b(ClaimRepository|ClaimService|DeliveryOwnershipRepository|DeliveryService|completeActiveBundle|claimAndDeliver)\b/.test(codeOf(file)))
      .map(relative);
    expect(reachingPast).toEqual([]);
  });
});
