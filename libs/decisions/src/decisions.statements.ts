import type { StatementCatalog } from '#persistence';
import { commandReceiptStatements } from './receipts/command-receipt.repository.js';
import { decisionStatements } from './decision/decision.repository.js';

/** Every statement the decisions lib's repositories run, for `npm run sql:write` and its staleness test. */
export function decisionsStatements(): StatementCatalog {
  return {
    lib: 'decisions',
    statements: [
      ...commandReceiptStatements,
      ...decisionStatements,
    ],
  };
}
