import type { ComplexityEstimatorArgs } from '@nestjs/graphql';
import { getOperationAST, GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { checkOperationCost, LIST_PAGE_COST, listCost, MAX_OPTIONS_PER_QUESTION, MAX_QUESTIONS_PER_BUNDLE, pageCost, rootFields } from './operation-cost.js';

/** What an estimator is called with; only `args` and `childComplexity` matter to ours. */
const estimate = (estimator: (args: ComplexityEstimatorArgs) => number, args: Record<string, unknown>, childComplexity: number) =>
  estimator({ args, childComplexity } as unknown as ComplexityEstimatorArgs);

/**
 * A small schema shaped like ours: a page of bundles (cost by `first`), each with up to four
 * questions of up to six options (cost by their maxima), a plain list and a single object.
 */
const Option = new GraphQLObjectType({ name: 'Option', fields: { id: { type: GraphQLString }, label: { type: GraphQLString } } });
const Question = new GraphQLObjectType({
  name: 'Question',
  fields: {
    id: { type: GraphQLString },
    options: { type: new GraphQLList(Option), extensions: { complexity: listCost(MAX_OPTIONS_PER_QUESTION) } },
  },
});
const Bundle = new GraphQLObjectType({
  name: 'Bundle',
  fields: {
    id: { type: GraphQLString },
    questions: { type: new GraphQLList(Question), extensions: { complexity: listCost(MAX_QUESTIONS_PER_BUNDLE) } },
  },
});
const BundleConnection = new GraphQLObjectType({ name: 'BundleConnection', fields: { nodes: { type: new GraphQLList(Bundle) } } });
const User = new GraphQLObjectType({ name: 'User', fields: { id: { type: GraphQLString } } });
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      bundles: { type: BundleConnection, args: { first: { type: GraphQLInt } }, extensions: { complexity: LIST_PAGE_COST } },
      tags: { type: new GraphQLList(GraphQLString) },
      me: { type: User },
    },
  }),
});

const limits = { maxCost: 10_000, maxRootLists: 2 };

/** The message checkOperationCost refuses `query` with, or undefined when it lets it run. */
function refusal(query: string, options: { maxCost?: number; maxRootLists?: number; variables?: Record<string, unknown>; operationName?: string } = {}) {
  try {
    checkOperationCost(schema, parse(query), options.variables, options.operationName, {
      maxCost: options.maxCost ?? limits.maxCost,
      maxRootLists: options.maxRootLists ?? limits.maxRootLists,
    });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The exact estimated cost of `query`: the smallest budget it passes. */
function costOf(query: string, variables?: Record<string, unknown>): number {
  const message = refusal(query, { maxCost: 0, maxRootLists: 100, ...(variables ? { variables } : {}) });
  const match = /estimated cost is (\d+)/.exec(message ?? '');
  if (!match) throw new Error(`no cost in ${message}`);
  const cost = Number(match[1]);
  expect(refusal(query, { maxCost: cost, maxRootLists: 100, ...(variables ? { variables } : {}) })).toBeUndefined();
  return cost;
}

describe('listCost and pageCost', () => {
  it('a list costs its size times (1 + what each element selects)', () => {
    expect(estimate(listCost(4), {}, 0)).toBe(4);
    expect(estimate(listCost(4), {}, 7)).toBe(32);
  });

  it.each([
    [{ first: 10 }, 10],
    [{}, 50],
    [{ first: null }, 50],
    [{ first: 0 }, 50],
    [{ first: -5 }, 50],
    [{ first: 200 }, 200],
    [{ first: 100_000 }, 200],
    [{ first: '10' }, 50],
  ])('a page with %j counts %d elements', (args, size) => {
    expect(estimate(pageCost(50, 200), args, 2)).toBe(size * 3);
  });
});

describe('checkOperationCost', () => {
  it('costs a field 1 and a page its size times what each element selects', () => {
    expect(costOf('{ me { id } }')).toBe(2);
    // bundles(first: 10) { nodes { id } }: 10 × (1 + nodes(1 + id 1)).
    expect(costOf('{ bundles(first: 10) { nodes { id } } }')).toBe(30);
  });

  it('multiplies nested lists by their maxima', () => {
    // options: 6 × (1 + label 1) = 12; questions: 4 × (1 + id 1 + 12) = 56; nodes: 1 + 56; page of 2: 2 × (1 + 57).
    expect(costOf('{ bundles(first: 2) { nodes { questions { id options { label } } } } }')).toBe(116);
  });

  it('reads `first` from the variables, and the default page size without it', () => {
    const query = 'query Q($n: Int) { bundles(first: $n) { nodes { id } } }';
    expect(costOf(query, { n: 3 })).toBe(9);
    expect(costOf(query)).toBe(150);
    expect(costOf(query, { n: 10_000 })).toBe(600);
  });

  it('refuses above the budget and names it, passes at it', () => {
    expect(refusal('{ bundles(first: 10) { nodes { id } } }', { maxCost: 29 })).toBe(
      'query is too expensive: its estimated cost is 30, above the budget of 29 (GRAPHQL_MAX_COST); a list costs its page size (first) times what each element selects',
    );
    expect(refusal('{ bundles(first: 10) { nodes { id } } }', { maxCost: 30 })).toBeUndefined();
  });

  it('counts root lists as executed: aliases, inline fragments and spreads', () => {
    expect(refusal('{ a: tags b: tags }')).toBeUndefined();
    expect(refusal('{ a: tags b: tags c: tags }')).toBe('query selects 3 list fields at its root; at most 2 per operation (GRAPHQL_MAX_ROOT_LISTS)');
    expect(refusal('{ tags ... on Query { bundles { nodes { id } } } ...F } fragment F on Query { t: tags me { id } }')).toMatch(
      /^query selects 3 list fields/,
    );
    // A connection is a list; a single object is not.
    expect(refusal('{ tags bundles(first: 1) { nodes { id } } me { id } }')).toBeUndefined();
  });

  it('checks only the named operation of a document with several', () => {
    const document = '{ me { id } } query Big { a: tags b: tags c: tags }';
    expect(refusal(document, { operationName: 'Big' })).toMatch(/^query selects 3 list fields/);
    // Without a name there is no one operation to run: execution reports that, not this check.
    expect(refusal(document)).toBeUndefined();
  });
});

describe('rootFields', () => {
  it('expands spreads once, even cyclic ones (the validation rules report the cycle)', () => {
    const document = parse('query { ...A } fragment A on Query { tags ...B } fragment B on Query { me { id } ...A }');
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    expect(rootFields(schema, document, operation).map((field) => field.name)).toEqual(['tags', 'me']);
  });

  it('skips fields the schema does not have and spreads of unknown fragments', () => {
    const document = parse('{ nope tags ...Missing }');
    const operation = getOperationAST(document);
    if (!operation) throw new Error('no operation');
    expect(rootFields(schema, document, operation).map((field) => field.name)).toEqual(['tags']);
  });
});
