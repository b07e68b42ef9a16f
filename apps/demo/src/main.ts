import { runDemoAgent } from './demo-agent.js';

/** `npm run demo`: the scripted agent against PARLEY_URL (default http://127.0.0.1:3000), with PARLEY_TOKEN when auth is enabled. */
async function main(): Promise<void> {
  const baseUrl = (process.env.PARLEY_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const say = (line: string) => process.stdout.write(`${line}\n`);
  await runDemoAgent({ baseUrl, token: process.env.PARLEY_TOKEN || undefined, say, onProgress: (message) => say(`  … ${message}`) });
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
