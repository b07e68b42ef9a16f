import { ADMIN_CALLER } from '../../../libs/authorization/src/index.js';
import type { WebhookSubscriptionService } from '../../../libs/webhooks/src/index.js';

/** The flags the webhook commands read (parsed with the CLI's other flags). */
export interface WebhookFlags {
  values: { workspace?: string; url?: string; events?: string; format?: string; secret?: string; limit?: string };
  positionals: string[];
}

export const WEBHOOK_USAGE = `  webhooks:create --workspace ID --url URL --events asked,resolved,expired,detached [--format json|slack] [--secret S]
                                    subscribe a URL (the secret is printed once)
  webhooks:list --workspace ID      a workspace's webhooks
  webhooks:deliveries WEBHOOK_ID [--limit N]  its delivery log, newest first
  webhooks:enable WEBHOOK_ID        re-enable (e.g. after repeated failures disabled it)
  webhooks:disable WEBHOOK_ID       stop sending (queued deliveries are skipped)
  webhooks:delete WEBHOOK_ID        delete it and its delivery log`;

function required(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is required\n${WEBHOOK_USAGE}`);
  return value;
}

type WebhookCommand = (webhooks: WebhookSubscriptionService, flags: WebhookFlags) => Promise<unknown>;

/** Webhook management from the command line, as an admin (issue 15). */
export const WEBHOOK_COMMANDS: Record<string, WebhookCommand> = {
  'webhooks:create': (webhooks, { values }) =>
    webhooks.create(ADMIN_CALLER, required(values.workspace, '--workspace'), {
      url: required(values.url, '--url'),
      events: required(values.events, '--events').split(',').map((event) => event.trim()),
      format: values.format,
      secret: values.secret,
    }),
  'webhooks:list': async (webhooks, { values }) => ({ webhooks: await webhooks.list(ADMIN_CALLER, required(values.workspace, '--workspace')) }),
  'webhooks:deliveries': (webhooks, { values, positionals }) =>
    webhooks.deliveryLog(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID'), { limit: values.limit === undefined ? undefined : Number(values.limit) }),
  'webhooks:enable': (webhooks, { positionals }) => webhooks.update(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID'), { enabled: true }),
  'webhooks:disable': (webhooks, { positionals }) => webhooks.update(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID'), { enabled: false }),
  'webhooks:delete': async (webhooks, { positionals }) => {
    await webhooks.delete(ADMIN_CALLER, required(positionals[1], 'WEBHOOK_ID'));
    return { deleted: positionals[1] };
  },
};
