import type { StatementCatalog } from '#persistence';
import { receiptKeyStatements } from './keys/receipt-key.repository.js';
import { receiptRecordStatements } from './redeem/receipt-record.repository.js';

/** Every statement the receipts lib's repositories run, for `npm run sql:write` and its staleness test. */
export function receiptsStatements(): StatementCatalog {
  return {
    lib: 'receipts',
    statements: [
      ...receiptKeyStatements,
      ...receiptRecordStatements,
    ],
  };
}
