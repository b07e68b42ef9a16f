import type { INestApplicationContext } from '@nestjs/common';
import { ADMIN_CALLER } from '#authorization';
import { WebhookSubscriptionService } from '#webhooks';
import { type CliCommand, required } from './cli-command.js';
import { recordOutput } from './cli-output.js';

function webhooks(app: INestApplicationContext | undefined): WebhookSubscriptionService {
  if (!app) throw new Error('this command needs the application');
  return app.get(WebhookSubscriptionService);
}

const CREATE = 'webhooks:create --workspace ID --url URL --events asked,resolved,expired,detached [--format json|slack] [--secret S]';

/** Webhook management from the command line, as the operator (docs/api/webhooks.md). */
export const WEBHOOK_COMMANDS: CliCommand[] = [
  {
    name: 'webhooks:create',
    usage: CREATE,
    summary: 'subscribe a URL to a workspace’s question events (the secret is printed once)',
    details: ['Prints the subscription with its signing secret; deliveries are signed with it.'],
    context: 'identity',
    run: async (app, { values }) =>
      recordOutput(
        await webhooks(app).create(ADMIN_CALLER, required(values.workspace, '--workspace', CREATE), {
          url: required(values.url, '--url', CREATE),
          events: required(values.events, '--events', CREATE)
            .split(',')
            .map((event) => event.trim()),
          format: values.format,
          secret: values.secret,
        }),
      ),
  },
  {
    name: 'webhooks:list',
    usage: 'webhooks:list --workspace ID',
    summary: 'a workspace’s webhooks',
    details: ['Prints {webhooks: [...]}.'],
    context: 'identity',
    run: async (app, { values }) =>
      recordOutput({ webhooks: await webhooks(app).list(ADMIN_CALLER, required(values.workspace, '--workspace', 'webhooks:list --workspace ID')) }),
  },
  {
    name: 'webhooks:deliveries',
    usage: 'webhooks:deliveries WEBHOOK_ID [--limit N]',
    summary: 'a webhook’s delivery log, newest first',
    details: ['Prints {deliveries: [...], next_cursor}.'],
    context: 'identity',
    run: async (app, { values, positionals }) =>
      recordOutput(
        await webhooks(app).deliveryLog(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID', 'webhooks:deliveries WEBHOOK_ID [--limit N]'), {
          limit: values.limit === undefined ? undefined : Number(values.limit),
        }),
      ),
  },
  {
    name: 'webhooks:enable',
    usage: 'webhooks:enable WEBHOOK_ID',
    summary: 're-enable a webhook (e.g. after repeated failures disabled it)',
    details: ['Deliveries it held back are sent again.'],
    context: 'identity',
    run: async (app, { positionals }) =>
      recordOutput(await webhooks(app).update(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID', 'webhooks:enable WEBHOOK_ID'), { enabled: true })),
  },
  {
    name: 'webhooks:disable',
    usage: 'webhooks:disable WEBHOOK_ID',
    summary: 'stop sending a webhook’s deliveries',
    details: ['Queued deliveries are skipped.'],
    context: 'identity',
    run: async (app, { positionals }) =>
      recordOutput(await webhooks(app).update(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID', 'webhooks:disable WEBHOOK_ID'), { enabled: false })),
  },
  {
    name: 'webhooks:delete',
    usage: 'webhooks:delete WEBHOOK_ID',
    summary: 'delete a webhook and its delivery log',
    details: ['Prints {deleted: WEBHOOK_ID}.'],
    context: 'identity',
    run: async (app, { positionals }) => {
      const id = required(positionals[1], 'WEBHOOK_ID', 'webhooks:delete WEBHOOK_ID');
      await webhooks(app).delete(ADMIN_CALLER, id);
      return recordOutput({ deleted: id });
    },
  },
];
