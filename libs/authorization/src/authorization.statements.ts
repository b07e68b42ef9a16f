import type { StatementCatalog } from '#persistence';
import { accessStatements } from './access/access.repository.js';
import { browserSessionStatements } from './identity/browser-session.repository.js';
import { identityStatements } from './identity/identity.repository.js';
import { membershipStatements } from './members/membership.repository.js';
import { sessionActorStatements } from './session-actor/session-actor.repository.js';

/** Every statement the authorization lib's repositories run, for `npm run sql:write` and its staleness test. */
export function authorizationStatements(): StatementCatalog {
  return {
    lib: 'authorization',
    statements: [
      ...accessStatements,
      ...browserSessionStatements,
      ...identityStatements,
      ...membershipStatements,
      ...sessionActorStatements,
    ],
  };
}
