import { spawn } from 'node:child_process';
import { eventually } from './eventually.js';
import { CLI_MAIN, logLines, type ServerProcess, startServerProcess, withinLifetime } from './server-process.js';

/** Lease timings small enough that a dead replica's work is taken over within seconds. */
export const FAST_LEASE = { LEASE_TTL_MS: '3000', LEASE_HEARTBEAT_MS: '500' };
export const LEASE_TTL_MS = Number(FAST_LEASE.LEASE_TTL_MS);

/** A replica: the real built server on the shared database (`DATABASE_URL`), with fast leases. */
export function startReplica(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess({ env: { DATABASE_URL: databaseUrl, ...FAST_LEASE, ...env } });
}

/** Resolves with the first JSON log line (stdout) matching `match`, failing on exit or after `ms`. */
export function logLine(
  server: ServerProcess,
  match: (line: Record<string, unknown>) => boolean,
  ms = 20_000,
  what = 'log line',
): Promise<Record<string, unknown>> {
  return withinLifetime(server.exited, eventually(() => logLines(server.output.stdout).find(match), ms, what), ms, what);
}

/** The process stopped at a `PARLEY_TEST_PAUSE_AT` fault point. */
export function pausedAt(server: ServerProcess, point: string): Promise<Record<string, unknown>> {
  return logLine(server, (line) => line.msg === 'paused at fault point' && line.point === point, 20_000, `pause at ${point}`);
}

/** Runs the CLI (`node dist/apps/server/src/cli.js …`) on the database; resolves with its exit code and output. */
export function runCli(databaseUrl: string, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, ...FAST_LEASE, ...extraEnv };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}
