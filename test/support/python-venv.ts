/**
 * Python virtual environments made by the test run itself from pinned, hash-checked requirements
 * (scripts/python-venv.mjs, which `npm run example -- python/<name>` uses too).
 */
export { pinnedPython, pythonClientPython, runCommand, VENV_TIMEOUT_MS, type VenvOptions } from '../../scripts/python-venv.mjs';
