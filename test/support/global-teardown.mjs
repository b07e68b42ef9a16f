import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  await globalThis.parleyTestServer?.stop();
  if (globalThis.parleyTestDataDir) await rm(globalThis.parleyTestDataDir, { recursive: true, force: true });
}
