import 'reflect-metadata';
import { ConfigError, loadConfig } from '../../../libs/config/src/index.js';
import { createApp } from './create-app.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen({ port: config.port, host: config.host });
  app.getHttpAdapter().getInstance().log.info({ url: await app.getUrl(), auth_mode: config.authMode }, 'parley listening');
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.message : `start-up failed: ${error instanceof Error ? error.stack : String(error)}`;
  process.stderr.write(`${JSON.stringify({ level: 'fatal', msg: message })}\n`);
  process.exit(1);
});
