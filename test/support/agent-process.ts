import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';
import type { Exit } from './server-process.js';

/**
 * An agent as its own process — an example (dist/examples/<name>/main.js) or the plain-client agent
 * (test/support/client-agent.mjs) — against a server, read through the examples' output contract:
 * `waiting <pending_id>`, then one JSON line.
 */
export const EXAMPLE = (name: string) => fileURLToPath(new URL(`../../dist/examples/${name}/main.js`, import.meta.url));
export const CLIENT_AGENT = fileURLToPath(new URL('./client-agent.mjs', import.meta.url));

export interface AgentProcess {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<Exit>;
  /** The pending id of the `waiting` line, once printed. */
  waiting(): Promise<string>;
  /** Exit code and the JSON of the last stdout line, once the process ended. */
  result(): Promise<{ exit: Exit; json: Record<string, unknown> | undefined; stderr: string }>;
}

export function spawnAgent(script: string, env: Record<string, string>, args: string[] = []): AgentProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, [script, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let ended = false;
  void exited.then(() => (ended = true));
  const lines = () => output.stdout.split('\n').filter((line) => line !== '');
  return {
    child,
    output,
    exited,
    waiting: () =>
      eventually(
        () => {
          const line = lines().find((candidate) => candidate.startsWith('waiting '));
          if (line) return line.slice('waiting '.length);
          if (ended) throw new Error(`the agent exited without waiting:\n${output.stdout}\n${output.stderr}`);
          return undefined;
        },
        30_000,
        `the waiting line of ${script}`,
      ),
    result: async () => {
      const exit = await exited;
      const last = lines().at(-1);
      let json: Record<string, unknown> | undefined;
      try {
        json = last ? (JSON.parse(last) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      return { exit, json, stderr: output.stderr };
    },
  };
}

/** kill -9: the agent gets no chance to clean up. */
export async function killAgent(agent: AgentProcess): Promise<Exit> {
  agent.child.kill('SIGKILL');
  return agent.exited;
}
