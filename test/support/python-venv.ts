/**
 * Python virtual environments made by the test run itself from pinned, hash-checked requirements
 * (scripts/python-venv.mjs, which `npm run example -- python/<name>` uses too), and one run of a
 * Python program in one of them.
 */
import { spawn } from 'node:child_process';

export { pythonClientPython, schemathesisPython, VENV_TIMEOUT_MS } from '../../scripts/python-venv.mjs';

export interface PythonRun {
  code: number | null;
  /** stdout and stderr, interleaved as they came. */
  output: string;
  seconds: number;
}

/** Runs `python <args>` in `cwd` to its end, killed with SIGKILL after `timeoutMs`. */
export function runPython(python: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<PythonRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}
