import type { z } from 'zod';
import { McpArgumentError } from './mcp-errors.js';

type Issue = z.core.$ZodIssue;

/** `answers[0].selected_options[1]`: the argument path as the docs (docs/api/) and the service messages spell fields. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)), '');
}

const ARTICLES: Record<string, string> = {
  array: 'an array',
  object: 'an object',
  int: 'an integer',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
};

function describe(issue: Issue): string {
  const field = fieldName(issue.path) || 'arguments';
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `${field} is required` : `${field} must be ${ARTICLES[issue.expected] ?? issue.expected}`;
    case 'unrecognized_keys':
      return `${fieldName([...issue.path, issue.keys[0] ?? ''])} is not an allowed field`;
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return `${field} is invalid: ${issue.message}`;
  }
}

/**
 * Validates tool arguments against the schema the tool publishes. The first mismatch becomes a
 * VALIDATION_ERROR tool error naming the field, the way every other surface reports bad input.
 */
export function parseArguments<T>(schema: z.ZodType<T>, args: unknown): T {
  const result = schema.safeParse(args ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const [first] = result.error.issues;
  throw new McpArgumentError(first ? describe(first) : 'arguments are invalid');
}
