import 'reflect-metadata';
import { runCli } from './cli/cli-runner.js';

// A failure exits at once, as before (a lingering handle must not keep a failed command alive).
const code = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
if (code !== 0) process.exit(code);
