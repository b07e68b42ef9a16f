import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Parley, ParleyError, ParleyNotFoundError, ParleyUnreachableError } from '@parley/client';

/**
 * What every example shares: the client from PARLEY_URL / PARLEY_TOKEN, the output contract
 * (`waiting <pending_id>`, then one JSON line), one clear line and exit 1 on failure, and a small
 * state file (under PARLEY_STATE_DIR) that lets a restarted example resume instead of asking again.
 */
export interface ExampleEnv {
  name: string;
  parley: Parley;
  /** Where this example keeps what must survive a restart. */
  stateDir: string;
}

export function exampleEnv(name: string): ExampleEnv {
  const url = process.env.PARLEY_URL || 'http://127.0.0.1:3000';
  const token = process.env.PARLEY_TOKEN || undefined;
  const stateDir = process.env.PARLEY_STATE_DIR || path.join(tmpdir(), 'parley-examples', name);
  // Unreachable at start-up: a few quick tries, then the one clear line (waiting, once asked, retries for good).
  return { name, stateDir, parley: new Parley({ url, ...(token ? { token } : {}), attempts: 3, backoff: { initialMs: 150, maxMs: 1000 } }) };
}

/** The line the contract starts with, once the bundle is asked (or found again after a restart). */
export function printWaiting(pendingId: string): void {
  process.stdout.write(`waiting ${pendingId}\n`);
}

/** The one JSON line the contract ends with. */
export function printResult(result: { answered: unknown } | { rejected: string } | Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** A session for this run: the one the state file names (a restart), else a new task and session. */
export interface RunState {
  sessionId: string;
  taskId: string;
  [key: string]: unknown;
}

const stateFile = (env: ExampleEnv) => path.join(env.stateDir, 'run.json');

export async function loadRun<T extends RunState>(env: ExampleEnv): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(stateFile(env), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export async function saveRun(env: ExampleEnv, state: RunState): Promise<void> {
  await mkdir(env.stateDir, { recursive: true });
  await writeFile(stateFile(env), JSON.stringify(state));
}

/** Forgets the run (and everything else in the state directory): the next start files a new task. */
export async function finishRun(env: ExampleEnv): Promise<void> {
  await rm(env.stateDir, { recursive: true, force: true });
}

/** Files a task and a RUNNING session with a started turn, and remembers them for a restart. */
export async function openRun(env: ExampleEnv, title: string): Promise<RunState> {
  const opened = await env.parley.projection.openSession({ taskTitle: title, workspaceName: `examples/${env.name}` });
  const state = { sessionId: opened.sessionId, taskId: opened.taskId };
  await saveRun(env, state);
  return state;
}

/** Runs an example's body: failures become one line on stderr and exit 1. */
export function runExample(env: ExampleEnv, body: () => Promise<void>): void {
  body().then(
    () => process.exit(0),
    async (error: unknown) => {
      // A state file naming a session this server does not know (a new database): start afresh next time.
      if (error instanceof ParleyNotFoundError) await finishRun(env);
      const line =
        error instanceof ParleyUnreachableError
          ? `${env.name}: ${error.message}. Start the server (npm start) or set PARLEY_URL.`
          : error instanceof ParleyError
            ? `${env.name}: the server refused: ${error.message} (${error.code})`
            : `${env.name}: ${error instanceof Error ? error.message : String(error)}`;
      process.stderr.write(`${line}\n`);
      process.exit(1);
    },
  );
}
