import { JSON_BODY_LIMITS } from './input-limits.js';
import { RequestBoundaryError, RequestBoundaryErrorCode } from './request-boundary.error.js';
import { childPath, unstorableTextReason } from './storable-text.js';

export type JsonBodyLimits = typeof JSON_BODY_LIMITS;

/** Fastify's own messages, kept so clients see the same text as before. */
export const EMPTY_JSON_BODY = "Body cannot be empty when content-type is set to 'application/json'";
export const INVALID_JSON_BODY = "Body is not valid JSON but content-type is set to 'application/json'";

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

interface Frame {
  array: boolean;
  index: number;
  /** [start, end) of the current field name's JSON string literal, in an object. */
  key: [number, number] | undefined;
  expectingKey: boolean;
}

const malformed = (message: string) => new RequestBoundaryError(RequestBoundaryErrorCode.Malformed, message);
const tooComplex = (message: string) => new RequestBoundaryError(RequestBoundaryErrorCode.BodyTooComplex, message);

function decodeKey(text: string, [start, end]: [number, number]): string {
  try {
    return String(JSON.parse(text.slice(start, end)));
  } catch {
    return text.slice(start + 1, end - 1);
  }
}

function framesPath(text: string, frames: readonly Frame[]): string {
  return frames.reduce(
    (path, frame) => (frame.array ? childPath(path, frame.index) : childPath(path, frame.key ? decodeKey(text, frame.key) : '')),
    'body',
  );
}

/**
 * One linear pass over the raw text, before JSON.parse builds anything: the path of the first
 * container nested deeper than `maxDepth`, else undefined. JSON.parse of a 600 KB run of `[` costs
 * about as much as the request is worth (hundreds of ms), this pass a millisecond. Malformed text is
 * left for JSON.parse to report.
 */
export function findTooDeep(text: string, maxDepth: number): string | undefined {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === QUOTE) {
      const start = i;
      for (i += 1; i < text.length; i += 1) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i += 1;
        else if (d === QUOTE) break;
      }
      if (top && !top.array && top.expectingKey) {
        top.key = [start, i + 1];
        top.expectingKey = false;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (frames.length >= maxDepth) return framesPath(text, frames);
      frames.push({ array: c === OPEN_ARRAY, index: 0, key: undefined, expectingKey: c === OPEN_OBJECT });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      frames.pop();
    } else if (c === COMMA && top) {
      if (top.array) top.index += 1;
      else top.expectingKey = true;
    }
  }
  return undefined;
}

/** Bounds every array, object, string and field name under `value`; `depth` is already bounded. */
function checkValue(value: unknown, path: string, limits: JsonBodyLimits): void {
  if (typeof value === 'string') {
    if (value.length > limits.stringCharacters) throw tooComplex(`${path} is longer than ${limits.stringCharacters} characters`);
    const reason = unstorableTextReason(value);
    if (reason) throw new RequestBoundaryError(RequestBoundaryErrorCode.UnstorableText, `${path} ${reason}`);
    return;
  }
  if (Array.isArray(value)) {
    if (value.length > limits.arrayItems) throw tooComplex(`${path} has more than ${limits.arrayItems} items`);
    value.forEach((item, index) => checkValue(item, childPath(path, index), limits));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const keys = Object.keys(value);
  if (keys.length > limits.objectFields) throw tooComplex(`${path} has more than ${limits.objectFields} fields`);
  for (const key of keys) {
    if (key.length > limits.fieldNameCharacters) {
      throw tooComplex(`${path} has a field name longer than ${limits.fieldNameCharacters} characters`);
    }
    const reason = unstorableTextReason(key);
    if (reason) throw new RequestBoundaryError(RequestBoundaryErrorCode.UnstorableText, `${path} has a field name that ${reason}`);
    // JSON.parse makes "__proto__" an own property, but any later merge would treat it as the prototype.
    if (key === '__proto__') throw malformed(`${path} has the forbidden field name "__proto__"`);
    checkValue((value as Record<string, unknown>)[key], childPath(path, key), limits);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a JSON request body within bounds, before anything transforms it: valid UTF-8, nesting,
 * array and object sizes, string and field-name lengths, and no text PostgreSQL cannot store.
 * Every refusal is a 400 naming the path (`body.questions[0].options is nested too deeply …`).
 */
export function parseJsonBody(raw: Buffer, limits: JsonBodyLimits = JSON_BODY_LIMITS): unknown {
  if (raw.length === 0) throw malformed(EMPTY_JSON_BODY);
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw malformed('body is not valid UTF-8');
  }
  const tooDeep = findTooDeep(text, limits.depth);
  if (tooDeep !== undefined) throw tooComplex(`${tooDeep} is nested too deeply (at most ${limits.depth} levels)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(INVALID_JSON_BODY);
  }
  checkValue(value, 'body', limits);
  return value;
}
