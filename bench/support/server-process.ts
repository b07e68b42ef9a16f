import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/server-process.js';
import { BENCH_ADMIN_TOKEN, UNLIMITED_RATE_ENV } from './app.js';
import type { CollectionCount, HeapReading, ProbeRequest } from './heap-probe.js';
import type { ParkedReply, ParkedRequest } from './parked-responses.js';

const SERVER_MAIN = fileURLToPath(new URL('../../apps/server/src/main.js', import.meta.url));
const PROBE = new URL('./heap-probe.js', import.meta.url).href;
/** The floors of a long poll (bench/support/*.floor.ts): no application, the same process setup. */
export const FLOORS = {
  'bare-http': fileURLToPath(new URL('./bare-http.floor.js', import.meta.url)),
  fastify: fileURLToPath(new URL('./fastify.floor.js', import.meta.url)),
} as const;
export type Floor = keyof typeof FLOORS;
/**
 * BENCH_NODE_FLAGS: extra node flags (e.g. `--max-semi-space-size=4`) for the server and every floor
 * alike, to measure a flag; the production start (`npm start`, the Dockerfile) passes none.
 */
export const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/**
 * The built server (dist/apps/server/src/main.js), or a floor server, in its own process with the
 * heap probe preloaded.
 */
export class BenchServerProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly dataDir: string | undefined,
    readonly output: { stderr: string },
  ) {}

  /**
   * `main`: another checkout's built server, to compare a change against the code before it;
   * `nodeFlags`: node flags for this server alone, after BENCH_NODE_FLAGS.
   */
  static async start(databaseUrl: string, env: Record<string, string> = {}, main = SERVER_MAIN, nodeFlags: readonly string[] = []): Promise<BenchServerProcess> {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'parley-bench-server-'));
    return BenchServerProcess.spawn(main, dataDir, nodeFlags, {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      AUTH_MODE: 'enabled',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      ...UNLIMITED_RATE_ENV,
      ...env,
    });
  }

  /** A floor server: same node flags, probe, host, log level and readiness check as the application. */
  static startFloor(floor: Floor): Promise<BenchServerProcess> {
    return BenchServerProcess.spawn(FLOORS[floor], undefined, [], {});
  }

  private static async spawn(main: string, dataDir: string | undefined, nodeFlags: readonly string[], env: Record<string, string>): Promise<BenchServerProcess> {
    const port = await freePort();
    const childEnv: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env };
    delete childEnv.NODE_OPTIONS;
    const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeFlags, '--expose-gc', '--import', PROBE, main], { env: childEnv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const output = { stderr: '' };
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr = (output.stderr + chunk).slice(-20_000)));
    const server = new BenchServerProcess(child, `http://127.0.0.1:${port}`, dataDir, output);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited: ${output.stderr}`);
      const healthy = await fetch(`${server.baseUrl}/healthz`).then((res) => res.ok, () => false);
      if (healthy) return server;
      if (Date.now() > deadline) throw new Error(`the server never became healthy: ${output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  private ask<T>(request: ProbeRequest | ParkedRequest): Promise<T> {
    return new Promise((resolve) => {
      this.child.once('message', (reply) => resolve(reply as T));
      this.child.send(request);
    });
  }

  /** V8 heap in use and RSS of the server after a full GC. */
  heap(): Promise<HeapReading> {
    return this.ask<HeapReading>({ op: 'heap' });
  }

  /** The full collections V8 has run of its own accord so far (no collection forced to read it). */
  async ownMajorCollections(): Promise<number> {
    return (await this.ask<CollectionCount>({ op: 'collections' })).ownMajorCollections;
  }

  async snapshot(file: string): Promise<string> {
    return (await this.ask<{ path: string }>({ op: 'snapshot', path: file })).path;
  }

  /** How many long polls a floor server holds. */
  async parked(): Promise<number> {
    return (await this.ask<ParkedReply>({ op: 'parked' })).parked;
  }

  /** Has a floor server answer its `count` oldest long polls. */
  async release(count: number): Promise<void> {
    await this.ask<ParkedReply>({ op: 'release', count });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true });
  }
}
