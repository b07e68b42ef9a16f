import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// The compiled module (npm test builds first): jest cannot load the TypeScript sources here.
import { EmbeddedDatabase } from '../../dist/libs/persistence/src/connection/embedded-database.js';

/**
 * One PostgreSQL server for the whole run: TEST_DATABASE_URL when given (e.g. a PostgreSQL 15
 * server), otherwise an embedded one under the system temp directory. Each test file creates its
 * own database on it (test/support/database.ts).
 */
export default async function globalSetup() {
  if (process.env.TEST_DATABASE_URL) return;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'parley-test-'));
  globalThis.parleyTestServer = await EmbeddedDatabase.start(dataDir);
  globalThis.parleyTestDataDir = dataDir;
  process.env.TEST_DATABASE_URL = globalThis.parleyTestServer.url;
}
