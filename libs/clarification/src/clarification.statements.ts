import type { DataSource } from 'typeorm';
import type { StatementCatalog } from '#persistence';
import { AUTHORIZED_BUNDLE } from './bundle/bundle.repository.js';
import { CLAIM, CLAIM_LOCK } from './claim/claim.sql.js';
import { pendingListStatements } from './pending-list/pending-list.sql.js';

/** Every statement the clarification lib sends named, for `npm run sql:write`. */
export function clarificationStatements(dataSource: DataSource): StatementCatalog {
  const pendingList = pendingListStatements(dataSource);
  return {
    lib: 'clarification',
    statements: [
      CLAIM_LOCK,
      CLAIM,
      AUTHORIZED_BUNDLE.all,
      AUTHORIZED_BUNDLE.user,
      AUTHORIZED_BUNDLE.session,
      pendingList.heads,
      pendingList.candidates,
      pendingList.rewalk,
    ],
  };
}
