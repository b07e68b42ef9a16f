import type { StatementCatalog } from '#persistence';
import { CLAIM, CLAIM_LOCK } from './claim/claim.sql.js';
import { auditStatements } from './audit/audit.repository.js';
import { bundleLifecycleStatements } from './lifecycle/bundle-lifecycle.repository.js';
import { bundleStatements } from './bundle/bundle.repository.js';
import { deadlineStatements } from './lifecycle/deadline.repository.js';
import { deliveryOwnershipStatements } from './claim/delivery-ownership.repository.js';
import { escalationStatements } from './lifecycle/escalation.repository.js';
import { pendingListStatements } from './pending-list/pending-list.repository.js';
import { questionEventStatements } from './events/question-event.repository.js';
import { voteStatements } from './routing/vote.repository.js';
import { waiterPresenceStatements } from './wait/waiter-presence.repository.js';
import { workerBundleStatements } from './pending-list/worker-bundle.repository.js';

/** Every statement the clarification lib's repositories run, for `npm run sql:write` and its staleness test. */
export function clarificationStatements(): StatementCatalog {
  return {
    lib: 'clarification',
    statements: [
      CLAIM_LOCK,
      CLAIM,
      ...auditStatements,
      ...bundleStatements,
      ...deliveryOwnershipStatements,
      ...questionEventStatements,
      ...bundleLifecycleStatements,
      ...deadlineStatements,
      ...escalationStatements,
      ...pendingListStatements,
      ...workerBundleStatements,
      ...voteStatements,
      ...waiterPresenceStatements,
    ],
  };
}
