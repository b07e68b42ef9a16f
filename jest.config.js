import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** package.json "imports" (`#tasks` → libs/tasks/src/index.ts): jest runs the sources, so it maps each to its `types` target. */
const { imports } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const subpathImports = Object.fromEntries(
  Object.entries(imports).map(([name, targets]) => [`^${name}$`, `<rootDir>/${targets.types.replace(/^\.\//, '')}`]),
);

const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'es6' },
  },
];

/** What every project shares: the sources run as ESM through swc, with the subpath imports mapped. */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': swc,
    '/node_modules/.+\\.js$': swc,
  },
  transformIgnorePatterns: ['^(?!.*/node_modules/(content-disposition|cookie)/).*/node_modules/'],
  moduleNameMapper: {
    ...subpathImports,
    // The client package is tested from its sources (the spawned agents and examples run its dist/).
    '^@parley/client$': '<rootDir>/packages/client/src/index.ts',
    '^@parley/client/(.*)$': '<rootDir>/packages/client/src/$1/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
};

function testFilesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return testFilesUnder(full);
    return /\.(e2e-)?spec\.ts$/.test(name) ? [full] : [];
  });
}

/**
 * The e2e files that start processes of their own (a built server, the CLI, an agent, Chromium, the
 * conformance runner, PgBouncer, Python): their timeouts do not allow the CPU-bound in-process files beside them, so
 * they run one at a time per lane, after the rest, in two lanes beside the mostly waiting fault tests
 * (scripts/run-tests.mjs). Found by
 * what they import, so a new such file cannot land among the parallel ones.
 */
const SPAWNS = /support\/(server-process|browser|agent-process|replicas|pgbouncer|python-venv)\.js|from 'node:child_process'/;
const spawningFiles = ['test/e2e', 'test/races']
  .flatMap((dir) => testFilesUnder(dir))
  .filter((file) => SPAWNS.test(readFileSync(file, 'utf8')))
  .map((file) => `<rootDir>/${file.split(path.sep).join('/')}`);

/** The tests that need the test PostgreSQL server (one for the whole run; each file makes its own database). */
const withDatabase = {
  ...base,
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
};

/** @type {import('jest').Config} */
export default {
  testTimeout: 60000,
  projects: [
    // Pure modules, beside their code: no database, no application, seconds.
    { ...base, displayName: 'unit', roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/packages'], testMatch: ['**/*.spec.ts'] },
    // Checks of the repository itself (layout, import circles, rule ids, doc links, frozen migrations).
    { ...withDatabase, displayName: 'structure', roots: ['<rootDir>/test/structure'], testMatch: ['**/*.spec.ts'] },
    // The real application on real PostgreSQL, in this process, by feature (test/e2e/) and its races
    // (test/races/): independent files (each has its own database), run in parallel workers.
    {
      ...withDatabase,
      displayName: 'e2e',
      roots: ['<rootDir>/test/e2e', '<rootDir>/test/races'],
      testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
      testPathIgnorePatterns: spawningFiles.map((file) => `^${file.replace('<rootDir>', process.cwd()).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    },
    // The e2e files that spawn processes (see SPAWNS), one at a time per lane, beside the faults.
    { ...withDatabase, displayName: 'processes', roots: ['<rootDir>/test/e2e', '<rootDir>/test/races'], testMatch: spawningFiles },
    // Spawned server processes killed, stopped and starved, and a database stopped, frozen or restarted:
    // one at a time, beside the processes.
    { ...withDatabase, displayName: 'faults', roots: ['<rootDir>/test/faults'], testMatch: ['**/*.e2e-spec.ts'] },
  ],
  // One file at a time unless a phase says otherwise (scripts/run-tests.mjs runs the e2e project in two
  // workers; with two, the spawned-process files cli and decisions-delivery-window missed their
  // timeouts — they are the processes project now), in a worker
  // process that is replaced once it holds more than this after a file: every file loads the whole
  // application into a fresh module registry and the main process kept ~65 MB of each, so a run in
  // band reached the 4 GB heap limit and slowed to a crawl in garbage collection (a 2 s file took 50 s).
  maxWorkers: 1,
  workerIdleMemoryLimit: '1GB',
};
