export * from './graphql-errors.js';
export * from './graphql.module.js';
export * from './schema-printer.js';
