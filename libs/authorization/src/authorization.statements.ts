import type { StatementCatalog } from '#persistence';
import { VISIBLE_WORKSPACES } from './access/access.repository.js';
import { ACTIVE_TOKEN } from './identity/identity.repository.js';

/** Every statement the authorization lib sends named, for `npm run sql:write`. */
export function authorizationStatements(): StatementCatalog {
  return { lib: 'authorization', statements: [ACTIVE_TOKEN, VISIBLE_WORKSPACES] };
}
