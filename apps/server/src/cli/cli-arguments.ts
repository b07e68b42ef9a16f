import { parseArgs } from 'node:util';

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  user: { type: 'string' },
  owner: { type: 'string' },
  workspace: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  answer: { type: 'string', multiple: true },
  text: { type: 'string', multiple: true },
  reject: { type: 'boolean' },
  reason: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  format: { type: 'string' },
  secret: { type: 'string' },
  slack: { type: 'string' },
  telegram: { type: 'string' },
} as const;

export function parseCliArguments(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
}

export type CliArguments = ReturnType<typeof parseCliArguments>;

/** A command line that does not fit its command's usage: exit 2 with the usage. */
export class CliUsageError extends Error {}
