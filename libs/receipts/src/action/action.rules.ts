import { childPath, findUnstorableText } from '#common';
import { canonicalDigest } from './canonical-digest.js';
import { type Action, ACTION_ARGUMENTS_MAX_BYTES, ACTION_NAME_MAX } from './action.types.js';

const ACTION_KEYS: readonly string[] = ['name', 'arguments'];

/**
 * Bidirectional controls (the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, the
 * marks U+200E, U+200F, U+061C): they reorder what is shown around them, so a name holding one can
 * read as another action than the one it is.
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The first number under `value` (the path naming it) that JSON parsers do not all read alike: not
 * finite, or an integer beyond ±(2^53−1), which parsers with 64-bit or arbitrary integers read
 * exactly and those with doubles round — so an executor could act on another value than the one
 * approved. Recursion is bounded by the request body's depth bound.
 */
function findUnsafeNumber(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return `${path} must be a finite number`;
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) return `${path} must be an integer from -9007199254740991 to 9007199254740991`;
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  for (const [key, child] of entries) {
    const found = findUnsafeNumber(child, childPath(path, key));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A character's code point as four or more uppercase hex digits (`202E`). */
function codePointOf(character: string): string {
  return (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}

/**
 * `value` as an action, or the message (naming the field under `field`) that says why it is not one:
 * `{name, arguments}` — a name of 1–200 characters without bidirectional controls, arguments a JSON
 * object of at most 64 KB whose numbers every JSON parser reads alike.
 */
export function parseAction(value: unknown, field = 'action'): { action: Action } | { problem: string } {
  if (!isPlainObject(value)) return { problem: `${field} must be an object {name, arguments}` };
  const extra = Object.keys(value).find((key) => !ACTION_KEYS.includes(key));
  if (extra !== undefined) return { problem: `${childPath(field, extra)} is not a field of an action (only name and arguments)` };
  const { name, arguments: args } = value;
  if (typeof name !== 'string' || name.trim() === '') return { problem: `${field}.name must be a non-empty string` };
  if ([...name].length > ACTION_NAME_MAX) return { problem: `${field}.name must be at most ${ACTION_NAME_MAX} characters` };
  const bidi = BIDI_CONTROL.exec(name)?.[0];
  if (bidi !== undefined) return { problem: `${field}.name must not contain the bidirectional control character U+${codePointOf(bidi)}` };
  if (!isPlainObject(args)) return { problem: `${field}.arguments must be a JSON object` };
  const unstorable = findUnstorableText(value, field);
  if (unstorable !== undefined) return { problem: unstorable };
  const unsafe = findUnsafeNumber(args, `${field}.arguments`);
  if (unsafe !== undefined) return { problem: unsafe };
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
