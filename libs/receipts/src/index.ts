export * from './action/action.rules.js';
export * from './action/action.types.js';
export * from './action/canonical-digest.js';
export * from './keys/receipt-keys.service.js';
export * from './receipts.errors.js';
export * from './receipts.module.js';
export * from './verify/receipt.service.js';
export * from './verify/receipt.types.js';
export { receiptsStatements } from './receipts.statements.js';
