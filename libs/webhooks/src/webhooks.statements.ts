import type { StatementCatalog } from '#persistence';
import { webhookDeliveryStatements } from './delivery/webhook-delivery.repository.js';
import { webhookSubscriptionStatements } from './subscription/webhook-subscription.repository.js';

/** Every statement the webhooks lib's repositories run, for `npm run sql:write` and its staleness test. */
export function webhooksStatements(): StatementCatalog {
  return {
    lib: 'webhooks',
    statements: [
      ...webhookDeliveryStatements,
      ...webhookSubscriptionStatements,
    ],
  };
}
