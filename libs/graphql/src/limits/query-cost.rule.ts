import { type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode, type ValidationRule } from 'graphql';

/**
 * A coarse cost limit: an operation may select at most `maxFields` fields in total, counted as
 * executed — a fragment counts each time it is spread (so ten spreads of a 49-field fragment under
 * ten fields select 500), and aliases and inline fragments count what they select.
 */
export function maxFieldsRule(maxFields: number): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const fragmentCounts = new Map<string, number>();
    const expanding = new Set<string>();

    /** Selected fields under `selectionSet`; stops early once above the limit (enough to refuse). */
    const count = (selectionSet: SelectionSetNode | undefined): number => {
      let total = 0;
      for (const selection of selectionSet?.selections ?? []) {
        if (selection.kind === Kind.FIELD) total += 1 + count(selection.selectionSet);
        else if (selection.kind === Kind.INLINE_FRAGMENT) total += count(selection.selectionSet);
        else total += fragmentCount(selection.name.value);
        if (total > maxFields) return total;
      }
      return total;
    };
    const fragmentCount = (name: string): number => {
      const known = fragmentCounts.get(name);
      if (known !== undefined) return known;
      const fragment = fragments.get(name);
      // Unknown and cyclic fragments are reported by the standard rules; they add nothing here.
      if (!fragment || expanding.has(name)) return 0;
      expanding.add(name);
      const fields = count(fragment.selectionSet);
      expanding.delete(name);
      fragmentCounts.set(name, fields);
      return fields;
    };

    return {
      OperationDefinition(operation) {
        if (count(operation.selectionSet) > maxFields) {
          context.reportError(new GraphQLError(`query is too expensive: it selects more than ${maxFields} fields`, { nodes: operation }));
        }
      },
    };
  };
}
