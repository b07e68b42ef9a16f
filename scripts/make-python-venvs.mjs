#!/usr/bin/env node
/**
 * Makes the Python virtual environments the test run uses (the Python client's, schemathesis's) when
 * they are missing (scripts/python-venv.mjs). `npm test` starts it in the background at its first
 * phase, so a clean clone's `pip install`s run while the in-process tiers do, not in the files that
 * need them; a failure is left for those files to report, with what to install.
 */
import { pythonClientPython, schemathesisPython } from './python-venv.mjs';

for (const make of [pythonClientPython, schemathesisPython]) {
  await make().catch((error) => process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`));
}
