import type { ComplexityEstimatorArgs } from '@nestjs/graphql';
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLField,
  getNullableType,
  getOperationAST,
  type GraphQLSchema,
  isListType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { LIST_PAGE } from '#common';
import { documentRefusal } from './document-limits.js';

/** The creation rules' maxima (docs/api/rest.md, "The clarification lifecycle"): what a bundle's nested lists can hold. */
export const MAX_QUESTIONS_PER_BUNDLE = 4;
export const MAX_OPTIONS_PER_QUESTION = 6;

export interface CostLimits {
  maxCost: number;
  maxRootLists: number;
}

/**
 * The cost model (docs/api/graphql.md): a field costs 1 plus what it selects; a list field costs its
 * size times (1 plus what each element selects), so nested lists multiply. A page's size is its
 * `first` argument (its default when absent, the maximum when above it); other lists count the
 * most they can hold.
 */
export const listCost =
  (size: number) =>
  ({ childComplexity }: ComplexityEstimatorArgs): number =>
    size * (1 + childComplexity);

export const pageCost =
  (defaultSize: number, maxSize: number) =>
  ({ args, childComplexity }: ComplexityEstimatorArgs): number => {
    const first = args.first as unknown;
    const size = typeof first === 'number' && first >= 1 ? Math.min(first, maxSize) : defaultSize;
    return size * (1 + childComplexity);
  };

/** The cost of a page under the shared list bounds (LIST_PAGE): tasks, workspaces, audit, deliveries. */
export const LIST_PAGE_COST = pageCost(LIST_PAGE.defaultLimit, LIST_PAGE.maxLimit);

/** The root fields an operation selects, as executed: aliases, inline fragments and spreads expanded. */
export function rootFields(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): GraphQLField<unknown, unknown>[] {
  const fields = schema.getRootType(operation.operation)?.getFields() ?? {};
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const selected: GraphQLField<unknown, unknown>[] = [];
  const visit = (selectionSet: SelectionSetNode, expanding: ReadonlySet<string>): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = fields[selection.name.value];
        if (field) selected.push(field);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, expanding);
      } else {
        const fragment = fragments.get(selection.name.value);
        // Unknown and cyclic spreads are the validation rules' to report.
        if (fragment && !expanding.has(fragment.name.value)) visit(fragment.selectionSet, new Set([...expanding, fragment.name.value]));
      }
    }
  };
  visit(operation.selectionSet, new Set());
  return selected;
}

/** A field that returns many things: a list, or a connection (a page). */
const returnsMany = (field: GraphQLField<unknown, unknown>): boolean =>
  isListType(getNullableType(field.type)) || getNamedType(field.type).name.endsWith('Connection');

/**
 * Refuses, before execution, an operation selecting more than `maxRootLists` list fields at its
 * root (aliases count: 250 aliases of one page are 250 queries) or costing more than `maxCost`.
 */
export function checkOperationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
  limits: CostLimits,
): void {
  const operation = getOperationAST(document, operationName);
  if (!operation) return;
  const lists = rootFields(schema, document, operation).filter(returnsMany);
  if (lists.length > limits.maxRootLists) {
    throw documentRefusal(
      `query selects ${lists.length} list fields at its root; at most ${limits.maxRootLists} per operation (GRAPHQL_MAX_ROOT_LISTS)`,
    );
  }
  const cost = getComplexity({
    schema,
    query: document,
    variables: variables ?? {},
    ...(operation.name ? { operationName: operation.name.value } : {}),
    estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
  });
  if (cost > limits.maxCost) {
    throw documentRefusal(
      `query is too expensive: its estimated cost is ${cost}, above the budget of ${limits.maxCost} (GRAPHQL_MAX_COST); ` +
        'a list costs its page size (first) times what each element selects',
    );
  }
}
