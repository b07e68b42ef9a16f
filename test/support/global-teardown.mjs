export default async function globalTeardown() {
  await globalThis.parleyTestServer?.stop();
}
