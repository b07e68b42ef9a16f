export * from './data-source.factory.js';
export * from './database.js';
export * from './embedded-database.js';
export * from './persistence.module.js';
export * from './transaction.js';
export * from './query-rows.js';
