import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  await globalThis.parleyTestServer?.stop();
  // A shutdown checkpoint on a slow disk can outlast stop()'s bound: PostgreSQL may still be writing its WAL directory for a moment.
  if (globalThis.parleyTestDataDir) await rm(globalThis.parleyTestDataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 500 });
}
