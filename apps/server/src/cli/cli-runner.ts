import { NestFactory } from '@nestjs/core';
import { DomainError, ErrorCode } from '#common';
import { loadConfig } from '#config';
import { type CliArguments, CliUsageError, parseCliArguments } from './cli-arguments.js';
import type { CliCommand, CliEnv } from './cli-command.js';
import { COMMANDS } from './cli-commands.js';
import { CliModule } from './cli.module.js';
import { renderTable } from './cli-output.js';
import { ServerCallError } from './cli-server-client.js';

const PROGRAM = 'parley';

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  return [
    `usage: ${PROGRAM} <command> [options] [--json]     (or: npm run parley -- <command> …)`,
    '',
    'commands:',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`),
    `  ${'help COMMAND'.padEnd(width)}the options of one command`,
    '',
    'Output is a table; --json prints JSON instead. The CLI uses DATABASE_URL (or the embedded',
    'database under DATA_DIR, shared with a running server) and acts as the unscoped operator.',
  ].join('\n');
}

function commandHelp(command: CliCommand): string {
  return [`usage: ${PROGRAM} ${command.usage} [--json]`, '', `${command.summary}.`, ...command.details].join('\n');
}

function find(name: string | undefined): CliCommand | undefined {
  return COMMANDS.find((command) => command.name === name);
}

/** --help, `help` and `help COMMAND`: usage on stdout, exit 0. */
function helpText(args: CliArguments): string | undefined {
  const [first, second] = args.positionals;
  if (first === 'help') {
    if (second === undefined) return overview();
    const command = find(second);
    if (!command) throw new CliUsageError(`unknown command "${second}"\n\n${overview()}`);
    return commandHelp(command);
  }
  if (args.values.help || first === undefined) {
    const command = find(first);
    return command ? commandHelp(command) : overview();
  }
  return undefined;
}

/** Where a CLI run reads its configuration and writes its output: the process's own, or a test's. */
export interface CliIo {
  env: CliEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

async function run(command: CliCommand, args: CliArguments, env: CliIo['env']) {
  if (command.context !== 'identity') return command.run(undefined, args, env);
  const config = { ...loadConfig(env), logLevel: 'silent' as const };
  const module = CliModule.forRoot(config);
  const app = await NestFactory.createApplicationContext(module, { logger: false, abortOnError: false });
  try {
    return await command.run(app, args, env);
  } finally {
    await app.close();
  }
}

async function main(argv: string[], io: CliIo): Promise<void> {
  const args = parseCliArguments(argv);
  const help = helpText(args);
  if (help !== undefined) {
    io.stdout.write(`${help}\n`);
    return;
  }
  const command = find(args.positionals[0]);
  if (!command) throw new CliUsageError(`unknown command "${args.positionals[0]}"\n\n${overview()}`);
  const output = await run(command, args, io.env);
  io.stdout.write(args.values.json ? `${JSON.stringify(output.json)}\n` : renderTable(output.table));
}

/** An error as the CLI reports it: `{error, code}` (the REST body) with --json, a line of text otherwise. */
function report(error: unknown, json: boolean, stderr: CliIo['stderr']): number {
  const usage = error instanceof CliUsageError || (error as { code?: string } | undefined)?.code?.startsWith('ERR_PARSE_ARGS');
  const message = error instanceof Error ? error.message : String(error);
  const code =
    error instanceof DomainError || error instanceof ServerCallError ? error.publicCode : usage ? ErrorCode.ValidationError : ErrorCode.InternalError;
  stderr.write(json ? `${JSON.stringify({ error: message, code })}\n` : `error: ${message}\n`);
  return usage ? 2 : 1;
}

/** Runs one CLI invocation; resolves with its exit code (0, 1 for a failure, 2 for a usage error). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    await main(argv, io);
    return 0;
  } catch (error) {
    return report(error, argv.includes('--json'), io.stderr);
  }
}
