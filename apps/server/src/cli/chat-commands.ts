import type { INestApplicationContext } from '@nestjs/common';
import { ADMIN_CALLER } from '#authorization';
import { ChatDestinationService, ChatLinkService } from '#channels';
import { CliUsageError } from './cli-arguments.js';
import { type CliCommand, required } from './cli-command.js';
import { recordOutput } from './cli-output.js';

function need(app: INestApplicationContext | undefined): INestApplicationContext {
  if (!app) throw new Error('this command needs the application');
  return app;
}

/** Exactly one of --slack / --telegram, as [platform, value]. */
function platformFlag(values: { slack?: string; telegram?: string }, usage: string): ['slack' | 'telegram', string] {
  if ((values.slack === undefined) === (values.telegram === undefined)) throw new CliUsageError(`give exactly one of --slack or --telegram\nusage: ${usage}`);
  return values.slack !== undefined ? ['slack', values.slack] : ['telegram', values.telegram as string];
}

const LINK = 'users:link --user USER_ID (--slack SLACK_USER_ID | --telegram TELEGRAM_USER_ID)';
const DESTINATION = 'workspaces:chat-destination --workspace WORKSPACE_ID (--slack CHANNEL_ID | --telegram CHAT_ID)';

/** Chat from the command line, as the operator (docs/channels.md). */
export const CHAT_COMMANDS: CliCommand[] = [
  {
    name: 'users:link',
    usage: LINK,
    summary: 'link a Slack or Telegram account to a user: it answers in chat as that user',
    details: ['Prints {platform, account_id, user_id, linked_at}. Linking an account again moves it to the new user.'],
    context: 'identity',
    run: async (app, { values }) => {
      const userId = required(values.user, '--user', LINK);
      const [platform, accountId] = platformFlag(values, LINK);
      return recordOutput(await need(app).get(ChatLinkService).link(platform, accountId, userId));
    },
  },
  {
    name: 'workspaces:chat-destination',
    usage: DESTINATION,
    summary: "set where a workspace's bundles are posted in Slack or Telegram",
    details: ['Prints {workspace_id, platform, destination, updated_at}. A routed bundle still goes to its assignees\' linked accounts.'],
    context: 'identity',
    run: async (app, { values }) => {
      const workspaceId = required(values.workspace, '--workspace', DESTINATION);
      const [platform, destination] = platformFlag(values, DESTINATION);
      return recordOutput(await need(app).get(ChatDestinationService).set(ADMIN_CALLER, workspaceId, platform, destination));
    },
  },
];
