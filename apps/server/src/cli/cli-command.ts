import type { INestApplicationContext } from '@nestjs/common';
import { type CliArguments, CliUsageError } from './cli-arguments.js';
import type { CliOutput } from './cli-output.js';

/** What a command works on: nothing, the database (identities and workspaces), or the running server's REST API. */
export type CliContext = 'none' | 'identity' | 'server';

export type CliEnv = Record<string, string | undefined>;

export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  /** The lines `help COMMAND` prints under the usage. */
  details: string[];
  context: CliContext;
  /** `env` is the run's environment (the process's, or a test's): server commands read PARLEY_URL / PARLEY_TOKEN there. */
  run(app: INestApplicationContext | undefined, args: CliArguments, env: CliEnv): Promise<CliOutput>;
}

/** A flag's value, or a usage error naming it. */
export function required(value: string | undefined, flag: string, usage: string): string {
  if (!value) throw new CliUsageError(`${flag} is required\nusage: ${usage}`);
  return value;
}
