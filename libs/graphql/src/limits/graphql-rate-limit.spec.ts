import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import { BUDGET_OF_MUTATION } from './graphql-rate-limit.js';

describe('GraphQL mutation budgets', () => {
  it('names the budget of every mutation in the committed schema (a new mutation must choose one)', () => {
    const schema = buildSchema(readFileSync(path.join(process.cwd(), 'schema.graphql'), 'utf8'));
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {}).sort();
    expect(mutations.length).toBeGreaterThan(0);
    expect(Object.keys(BUDGET_OF_MUTATION).sort()).toEqual(mutations);
  });
});
