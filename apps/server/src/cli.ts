import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { IdentityService } from '../../../libs/authorization/src/index.js';
import { DomainError } from '../../../libs/common/src/index.js';
import { loadConfig } from '../../../libs/config/src/index.js';
import { buildSchemaSdl } from '../../../libs/graphql/src/index.js';
import { WebhookSubscriptionService } from '../../../libs/webhooks/src/index.js';
import { CliModule } from './cli.module.js';
import { WEBHOOK_COMMANDS, WEBHOOK_USAGE } from './webhook-commands.js';

const USAGE = `usage: npm run parley -- <command>
  users:create --name NAME          create a user
  tokens:create --user ID [--name N] create a personal access token (shown once)
  tokens:revoke TOKEN_ID            revoke a token
  migrations:run                    apply pending migrations
  schema:write                      write the GraphQL SDL to schema.graphql
${WEBHOOK_USAGE}`;

type Command = (identity: IdentityService, args: ReturnType<typeof parse>) => Promise<unknown>;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      user: { type: 'string' },
      workspace: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      format: { type: 'string' },
      secret: { type: 'string' },
      limit: { type: 'string' },
    },
  });
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new Error(`${flag} is required\n${USAGE}`);
  return value;
}

const COMMANDS: Record<string, Command> = {
  'users:create': async (identity, { values }) => {
    const user = await identity.createUser(required(values.name, '--name'));
    return { id: user.id, name: user.name };
  },
  'tokens:create': async (identity, { values }) => {
    const { row, token } = await identity.createToken(required(values.user, '--user'), values.name ?? '');
    return { id: row.id, user_id: row.user_id, token };
  },
  'tokens:revoke': async (identity, { positionals }) => {
    const row = await identity.revokeToken(required(positionals[1], 'TOKEN_ID'));
    return { id: row.id, revoked_at: row.revoked_at };
  },
  'migrations:run': async () => ({ migrations: 'up to date' }),
};

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args.positionals[0] === 'schema:write') {
    await writeFile('schema.graphql', await buildSchemaSdl());
    process.stdout.write(`${JSON.stringify({ written: 'schema.graphql' })}\n`);
    return;
  }
  const name = args.positionals[0] ?? '';
  const command = COMMANDS[name];
  const webhookCommand = WEBHOOK_COMMANDS[name];
  if (!command && !webhookCommand) throw new Error(USAGE);
  const config = { ...loadConfig(), logLevel: 'silent' as const };
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), { logger: false, abortOnError: false });
  try {
    const result = command ? await command(app.get(IdentityService), args) : await webhookCommand?.(app.get(WebhookSubscriptionService), args);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  const message = error instanceof DomainError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  process.exit(1);
});
