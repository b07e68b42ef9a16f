import type { StatementCatalog } from '#persistence';
import { webhookDeliveryStatements } from './webhook-delivery.repository.js';
import { webhookSubscriptionStatements } from './webhook-subscription.repository.js';

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
