import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';

/**
 * The real built server (`npm run build` ⇒ dist/apps/server/src/main.js) as a child process, for
 * tests whose fault is a process fault: kill -9, SIGTERM, several replicas on one database.
 */

export const SERVER_MAIN = fileURLToPath(new URL('../../dist/apps/server/src/main.js', import.meta.url));
export const CLI_MAIN = fileURLToPath(new URL('../../dist/apps/server/src/cli.js', import.meta.url));
/** How long a spawned server may take to answer /healthz (raise it with TEST_HEALTH_TIMEOUT_MS on a loaded machine). */
const HEALTH_TIMEOUT_MS = Number(process.env.TEST_HEALTH_TIMEOUT_MS ?? 30_000);

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<Exit>;
  dataDir: string;
  baseUrl: string;
  port: number;
}

const running = new Set<ServerProcess>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below the kernel's ephemeral range, which freePort's ports and every outgoing
 * connection's own port come from: a database stopped and started again on it finds it still free
 * whatever the processes beside it (the other lane of `npm test` included) listen on or connect from.
 */
export async function stablePort(): Promise<number> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '32768 60999');
  const ephemeralFrom = Number(range.trim().split(/\s+/)[0]) || 32_768;
  const lowest = 20_000;
  for (;;) {
    const port = lowest + Math.floor(Math.random() * (ephemeralFrom - lowest));
    if (await canListen(port)) return port;
  }
}

export async function tempDir(prefix = 'parley-proc-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** Starts the built server with `env` on top of a clean environment (no DATABASE_URL unless given). */
export function launchServer(options: { env?: Record<string, string>; dataDir: string; port: number }): ServerProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: options.dataDir,
    HOST: '127.0.0.1',
    PORT: String(options.port),
    LOG_LEVEL: 'info',
    AUTH_MODE: 'disabled',
    // The tests' receivers listen on 127.0.0.1 (see startApp).
    OUTBOUND_ALLOW_PRIVATE_TARGETS: 'true',
    ...options.env,
  };
  if (!options.env || !('DATABASE_URL' in options.env)) delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [SERVER_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const server: ServerProcess = { child, output, exited, dataDir: options.dataDir, port: options.port, baseUrl: `http://127.0.0.1:${options.port}` };
  running.add(server);
  void exited.then(() => running.delete(server));
  return server;
}

/** Resolves `promise`, failing after `ms` or as soon as the process exits. */
export async function withinLifetime<T>(exited: Promise<Exit>, promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  const died = exited.then((exit) => Promise.reject(new Error(`${what}: the server exited early (${JSON.stringify(exit)})`)));
  try {
    return await Promise.race([promise, timeout, died]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls GET /healthz until it answers 200. */
export async function waitHealthy(server: ServerProcess): Promise<void> {
  // A refused connection is a server not listening yet.
  const healthy = async () => ((await fetch(`${server.baseUrl}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined);
  const poll = eventually(healthy, HEALTH_TIMEOUT_MS, 'waiting for /healthz');
  await withinLifetime(server.exited, poll, HEALTH_TIMEOUT_MS, 'waiting for /healthz').catch((error: Error) => {
    throw new Error(`${error.message}\nstderr:\n${server.output.stderr}\nstdout (tail):\n${server.output.stdout.slice(-2000)}`);
  });
}

/** Launches a server on a free port and waits until it is healthy. */
export async function startServerProcess(options: { env?: Record<string, string>; dataDir?: string } = {}): Promise<ServerProcess> {
  const server = launchServer({ env: options.env, dataDir: options.dataDir ?? (await tempDir()), port: await freePort() });
  await waitHealthy(server);
  return server;
}

export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM', ms = 20_000): Promise<Exit> {
  server.child.kill(signal);
  return withinLifetime(new Promise<Exit>(() => undefined), server.exited, ms, `waiting for exit after ${signal}`);
}

/** kill -9: the process gets no chance to clean up. */
export async function killServer(server: ServerProcess): Promise<Exit> {
  return stopServer(server, 'SIGKILL');
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded postmaster serving DATA_DIR/pg: its pid and port (postmaster.pid lines 1 and 4). */
export async function postmaster(dataDir: string): Promise<{ pid: number; port: number }> {
  const [pidLine, , , portLine] = (await readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n');
  return { pid: Number(pidLine), port: Number(portLine) };
}

export async function embeddedUrl(dataDir: string): Promise<string> {
  const { password } = JSON.parse(await readFile(path.join(dataDir, 'credentials.json'), 'utf8')) as { password: string };
  const { port } = await postmaster(dataDir);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/parley`;
}

/** Never leaves a server (or its embedded PostgreSQL) behind: SIGTERM first, SIGKILL as a last resort. */
export async function killAllServers(): Promise<void> {
  for (const server of [...running]) {
    server.child.kill('SIGTERM');
    const exit = await withinLifetime(new Promise<Exit>(() => undefined), server.exited, 15_000, 'cleanup').catch(() => undefined);
    if (exit === undefined) {
      server.child.kill('SIGKILL');
      const pidFile = path.join(server.dataDir, 'pg', 'postmaster.pid');
      if (existsSync(pidFile)) {
        const { pid } = await postmaster(server.dataDir);
        if (isAlive(pid)) process.kill(pid, 'SIGINT');
      }
    }
  }
}

/** JSON log lines of a process's stream at the given level. */
export function logLines(stream: string, level?: string): Array<Record<string, unknown>> {
  return stream
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => level === undefined || line.level === level);
}
