import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../apps/server/src/http/create-app.js';
import { type AppConfig, loadConfig } from '#config';

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const LIST_TOOL = 'list_pending_questions_kandev';

export interface BenchApp {
  app: NestFastifyApplication;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Rate limits out of the way (docs/configuration.md, "Rate limits": 600 answers/min per identity by default): a
 * benchmark measures the answer path, not the limiter refusing it. The same values as environment
 * variables for a spawned server.
 */
export const UNLIMITED_RATES: AppConfig['rateLimits'] = {
  windowSeconds: 60,
  signIn: 1_000_000,
  failedCredentials: 1_000_000,
  answers: 1_000_000,
  lists: 1_000_000,
  asks: 1_000_000,
  creations: 1_000_000,
  verifications: 1_000_000,
};
export const UNLIMITED_RATE_ENV: Record<string, string> = {
  RATE_LIMIT_SIGN_IN: '1000000',
  RATE_LIMIT_FAILED_CREDENTIALS: '1000000',
  RATE_LIMIT_ANSWERS: '1000000',
  RATE_LIMIT_LISTS: '1000000',
  RATE_LIMIT_ASKS: '1000000',
  RATE_LIMIT_CREATIONS: '1000000',
  RATE_LIMIT_VERIFICATIONS: '1000000',
};

/** The real application (createApp), auth enabled, on `databaseUrl`, listening on 127.0.0.1:<free port>. */
export async function startBenchApp(databaseUrl: string, overrides: Partial<AppConfig> = {}): Promise<BenchApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'parley-bench-app-'));
  const app = await createApp({
    ...loadConfig({}),
    databaseUrl,
    dataDir,
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    authMode: 'enabled',
    adminToken: BENCH_ADMIN_TOKEN,
    rateLimits: UNLIMITED_RATES,
    ...overrides,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminPost<T>(baseUrl: string, route: string, body: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${route} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** A user and a personal access token for them, through the admin API. */
export async function createUserWithToken(baseUrl: string, name: string): Promise<{ userId: string; token: string }> {
  const user = await adminPost<{ id: string }>(baseUrl, '/api/v1/admin/users', { name });
  const token = await adminPost<{ token: string }>(baseUrl, `/api/v1/admin/users/${user.id}/tokens`, { name: 'bench' });
  return { userId: user.id, token: token.token };
}

export interface PendingPage {
  bundles: { pending_id: string; questions: unknown[] }[];
  count: number;
  next_cursor: string;
}

/** An MCP SDK client on the external surface (/mcp), one connection reused for every call. */
export class ListClient {
  private constructor(private readonly client: Client) {}

  static async connect(baseUrl: string, bearer: string): Promise<ListClient> {
    const client = new Client({ name: 'parley-bench', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    });
    await client.connect(transport);
    return new ListClient(client);
  }

  async list(args: { cursor?: string; limit?: number } = {}): Promise<PendingPage> {
    const result = await this.client.callTool({ name: LIST_TOOL, arguments: args });
    if (result.isError) throw new Error(`${LIST_TOOL} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as PendingPage;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
