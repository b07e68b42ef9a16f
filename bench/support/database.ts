import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedDatabase } from '../../libs/persistence/src/connection/embedded-database.js';

/** The PostgreSQL server the benchmark runs on: BENCH_DATABASE_URL, or an embedded one in a temp dir. */
export interface BenchServer {
  /** Where it came from, for the report. */
  description: string;
  /** Creates an empty database on the server and returns its URL. */
  createDatabase(label: string): Promise<string>;
  /** Drops the databases created here and stops an embedded server. */
  stop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function startBenchServer(): Promise<BenchServer> {
  const external = process.env.BENCH_DATABASE_URL?.trim();
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let serverUrl: string;
  if (external) {
    serverUrl = external;
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'parley-bench-'));
    // Room for every pool at once: two in-process apps, up to two spawned servers, the replay's and pgbench's 16 clients each.
    embedded = await EmbeddedDatabase.start(dataDir, undefined, { settings: { max_connections: '300' } });
    serverUrl = embedded.url;
  }
  const version = await onServer(serverUrl, async (client) => (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]?.v);
  const created: string[] = [];
  return {
    description: `${external ? 'BENCH_DATABASE_URL' : 'embedded'} PostgreSQL ${version ?? '?'}`,
    async createDatabase(label: string): Promise<string> {
      const name = `parley_bench_${label}_${randomBytes(4).toString('hex')}`;
      await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
      created.push(name);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async stop(): Promise<void> {
      if (external) {
        for (const name of created) {
          await onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
        }
      }
      await embedded?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
