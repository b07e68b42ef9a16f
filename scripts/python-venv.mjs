/**
 * A Python virtual environment made from a pinned, hash-checked requirements file (`python3 -m venv`,
 * then `pip install --require-hashes`), under node_modules/.cache/<cacheName>/<hash of the
 * requirements and the interpreter's version>: later uses reuse it, a change of the requirements
 * makes a new one. Used by the schemathesis test, the Python client's tests,
 * `npm run example -- python/<name>` and scripts/make-python-venvs.mjs, which `npm test` starts in the
 * background so both are made before their tests need them (types: python-venv.d.mts;
 * test/support/python-venv.ts). One process makes a venv at a time (a lock file beside it); the others
 * wait for it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Making a venv: pip downloads and installs everything the first time. */
export const VENV_TIMEOUT_MS = 600_000;

/** Runs a command, failing with its output. */
export async function runCommand(file, args, timeout, options = {}) {
  try {
    return await exec(file, args, {
      timeout,
      maxBuffer: 64 * 1024 * 1024,
      cwd: options.cwd,
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', ...options.env },
    });
  } catch (error) {
    const { stdout, stderr, message } = error;
    throw new Error(`${file} ${args.join(' ')} failed: ${message}\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}

/** The interpreter's version (`3.11.7`), failing with what to install when it cannot make a venv. */
async function pythonVersion(options) {
  const probe = "import ensurepip, sys, venv; print('.'.join(map(str, sys.version_info[:3])))";
  let version;
  try {
    version = (await exec(options.python, ['-c', probe])).stdout.trim();
  } catch (error) {
    throw new Error(
      `${options.purpose} needs Python ≥ 3.${options.minimumMinor} with venv and ensurepip, and "${options.python}" is not one ` +
        `(install python3 and, on Debian, python3-venv — .ci/run does; or set ${options.pythonVariable} to an interpreter that has them)`,
      { cause: error },
    );
  }
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major !== 3 || minor < options.minimumMinor) {
    throw new Error(`${options.purpose} needs Python ≥ 3.${options.minimumMinor}; ${options.python} is ${version} (set ${options.pythonVariable} to a newer one)`);
  }
  return version;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Takes the lock file `file` (it holds the pid of the process making the venv), waiting while a live
 * process holds it. A lock whose process is gone, or older than twice a venv's making, is stale.
 */
async function lock(file) {
  for (;;) {
    try {
      await writeFile(file, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(file, 'utf8').catch(() => ''));
    const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now());
    if ((holder > 0 && !isAlive(holder)) || age > 2 * VENV_TIMEOUT_MS) await rm(file, { force: true });
    else await delay(500);
  }
}

/**
 * The Python of the virtual environment of the pinned requirements: reused when present, made when
 * not — in a temporary directory renamed into place, so a half-made one is never used; a process
 * that finds another one making it waits for that one. Run its tools as `python -m <module>`: a
 * venv's scripts name the temporary directory in their shebangs, its `bin/python` finds the venv
 * from where it is.
 */
export async function pinnedPython(options) {
  const cache = path.join(ROOT, 'node_modules/.cache', options.cacheName);
  const key = createHash('sha256')
    .update(await readFile(options.requirements))
    .update(await pythonVersion(options))
    .digest('hex');
  const venv = path.join(cache, key.slice(0, 16));
  const python = path.join(venv, 'bin', 'python');
  if (existsSync(python)) return python;
  await mkdir(cache, { recursive: true });
  const lockFile = `${venv}.lock`;
  await lock(lockFile);
  try {
    if (existsSync(python)) return python;
    // What a maker killed midway left behind (nobody else makes this venv while the lock is held).
    const leftovers = (await readdir(cache)).filter((name) => name.startsWith(`${path.basename(venv)}.tmp-`));
    for (const name of leftovers) await rm(path.join(cache, name), { recursive: true, force: true });
    options.onMake?.();
    const building = await mkdtemp(`${venv}.tmp-`);
    try {
      await runCommand(options.python, ['-m', 'venv', building], VENV_TIMEOUT_MS);
      const install = ['-m', 'pip', 'install', '--no-input', '--quiet', '--require-hashes', '-r', options.requirements];
      await runCommand(path.join(building, 'bin', 'python'), install, VENV_TIMEOUT_MS);
      await rm(venv, { recursive: true, force: true });
      await rename(building, venv);
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      throw error;
    }
    return python;
  } finally {
    await rm(lockFile, { force: true });
  }
}

/** The venv of the Python client's pinned requirements (its tests and the Python examples share it). */
export function pythonClientPython(onMake) {
  return pinnedPython({
    onMake,
    requirements: path.join(ROOT, 'packages/python/requirements-dev.txt'),
    cacheName: 'parley-python-client',
    python: process.env.PARLEY_PYTHON ?? 'python3',
    pythonVariable: 'PARLEY_PYTHON',
    minimumMinor: 10,
    purpose: 'the Python client',
  });
}

/** The venv of the pinned schemathesis (test/schemathesis/requirements.txt), for its test. */
export function schemathesisPython() {
  return pinnedPython({
    requirements: path.join(ROOT, 'test/schemathesis/requirements.txt'),
    cacheName: 'parley-schemathesis',
    python: process.env.SCHEMATHESIS_PYTHON ?? 'python3',
    pythonVariable: 'SCHEMATHESIS_PYTHON',
    minimumMinor: 11,
    purpose: 'the schemathesis test',
  });
}
