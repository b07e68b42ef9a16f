import type { StatementCatalog } from './query/named-statement.js';
import { healthStatements } from './health/health.repository.js';
import { processLeaseStatements } from './lease/process-lease.repository.js';

/** Every statement the persistence lib's repositories run, for `npm run sql:write` and its staleness test. */
export function persistenceStatements(): StatementCatalog {
  return {
    lib: 'persistence',
    statements: [
      ...healthStatements,
      ...processLeaseStatements,
    ],
  };
}
