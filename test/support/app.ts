import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type pg from 'pg';
import { createApp } from '../../apps/server/src/http/create-app.js';
import { type AppConfig, loadConfig } from '#config';
import { createTestDatabase, openPool } from './database.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestApp {
  app: NestFastifyApplication;
  /** http://127.0.0.1:<port> of the listening server. */
  baseUrl: string;
  config: AppConfig;
  databaseUrl: string;
  /** A separate pool on the same database, for arranging and asserting rows directly. */
  db: pg.Pool;
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Partial<AppConfig>;
  /** Reuse a database (e.g. to restart the app on the same data); a fresh one otherwise. */
  databaseUrl?: string;
}

/** Starts the real application on a real PostgreSQL database, listening on a free loopback port. */
export async function startApp(options: StartOptions = {}): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const config: AppConfig = {
    ...loadConfig({}),
    dataDir: await mkdtemp(path.join(tmpdir(), 'parley-app-')),
    port: 0,
    logLevel: 'silent',
    adminToken: TEST_ADMIN_TOKEN,
    // The tests' receivers listen on 127.0.0.1; a test of the outbound policy itself turns this off.
    outbound: { allowPrivateTargets: true },
    ...options.config,
    databaseUrl,
  };
  const app = await createApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const db = openPool(databaseUrl);
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    databaseUrl,
    db,
    async close() {
      await db.end();
      await app.close();
    },
  };
}
