/**
 * Python virtual environments made by the test run itself from pinned, hash-checked requirements
 * (scripts/python-venv.mjs, which `npm run example -- python/<name>` uses too).
 */
export { pythonClientPython, schemathesisPython, VENV_TIMEOUT_MS } from '../../scripts/python-venv.mjs';
