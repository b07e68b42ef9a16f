import { childPath, findUnstorableText } from '#common';
import { canonicalDigest } from './canonical-digest.js';
import type { Action } from './action.types.js';

/** At most this many characters (code points) in an action's name. */
export const ACTION_NAME_MAX = 200;
/** At most this many bytes in an action's arguments, as UTF-8 canonical JSON. */
export const ACTION_ARGUMENTS_MAX_BYTES = 64 * 1024;

const ACTION_KEYS: readonly string[] = ['name', 'arguments'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `value` as an action, or the message (naming the field under `field`) that says why it is not one:
 * `{name, arguments}` — a name of 1–200 characters, arguments a JSON object of at most 64 KB.
 */
export function parseAction(value: unknown, field = 'action'): { action: Action } | { problem: string } {
  if (!isPlainObject(value)) return { problem: `${field} must be an object {name, arguments}` };
  const extra = Object.keys(value).find((key) => !ACTION_KEYS.includes(key));
  if (extra !== undefined) return { problem: `${childPath(field, extra)} is not a field of an action (only name and arguments)` };
  const { name, arguments: args } = value;
  if (typeof name !== 'string' || name.trim() === '') return { problem: `${field}.name must be a non-empty string` };
  if ([...name].length > ACTION_NAME_MAX) return { problem: `${field}.name must be at most ${ACTION_NAME_MAX} characters` };
  if (!isPlainObject(args)) return { problem: `${field}.arguments must be a JSON object` };
  const unstorable = findUnstorableText(value, field);
  if (unstorable !== undefined) return { problem: unstorable };
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(args), 'utf8');
  } catch {
    return { problem: `${field}.arguments must be a JSON object` };
  }
  if (bytes > ACTION_ARGUMENTS_MAX_BYTES) return { problem: `${field}.arguments must be at most ${ACTION_ARGUMENTS_MAX_BYTES} bytes of JSON` };
  return { action: { name, arguments: args } };
}

/** The action's digest: SHA-256 over the RFC 8785 canonical JSON of `{name, arguments}` (lowercase hex). */
export function actionDigest(action: Action): string {
  return canonicalDigest({ name: action.name, arguments: action.arguments });
}
