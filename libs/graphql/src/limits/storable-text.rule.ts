import { GraphQLError, Kind, type ValueNode, type ValidationRule } from 'graphql';
import { childPath, ErrorCode, unstorableTextReason } from '#common';

/** The first string literal under `value` that cannot be stored, as a message naming its path. */
function findInLiteral(value: ValueNode, path: string): string | undefined {
  switch (value.kind) {
    case Kind.STRING: {
      const reason = unstorableTextReason(value.value);
      return reason && `${path} ${reason}`;
    }
    case Kind.LIST:
      for (const [index, item] of value.values.entries()) {
        const found = findInLiteral(item, childPath(path, index));
        if (found) return found;
      }
      return undefined;
    case Kind.OBJECT:
      for (const field of value.fields) {
        const found = findInLiteral(field.value, childPath(path, field.name.value));
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

/**
 * Inline string literals (and variable defaults) holding text PostgreSQL cannot store — a NUL
 * written as a GraphQL escape (graphql-js itself refuses lone surrogate escapes) — refuse the whole
 * document before it runs, naming the first such argument. Variables sent in a JSON body never get
 * here: the body parser refuses them.
 */
export const storableTextRule: ValidationRule = (context) => {
  let reported = false;
  const report = (message: string | undefined) => {
    if (!message || reported) return;
    reported = true;
    context.reportError(new GraphQLError(message, { extensions: { code: ErrorCode.ValidationError } }));
  };
  return {
    Argument(argument) {
      report(findInLiteral(argument.value, `argument ${argument.name.value}`));
    },
    VariableDefinition(definition) {
      if (definition.defaultValue) report(findInLiteral(definition.defaultValue, `default of $${definition.variable.name.value}`));
    },
  };
};
