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
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const PLUS = 0x2b;
const DOT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** Up to this many digits, an integer literal is exactly a double: no number check needed. */
const EXACT_INTEGER_DIGITS = 15;

interface Frame {
  array: boolean;
  index: number;
  /** [start, end) of the current field name's JSON string literal, in an object. */
  key: [number, number] | undefined;
  expectingKey: boolean;
  /** An object's field names so far (decoded), to find one given twice. */
  names: Set<string> | undefined;
}

const malformed = (message: string) => new RequestBoundaryError(RequestBoundaryErrorCode.Malformed, message);
const tooComplex = (message: string) => new RequestBoundaryError(RequestBoundaryErrorCode.BodyTooComplex, message);

function decodeKey(text: string, [start, end]: [number, number]): string {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  try {
    return String(JSON.parse(text.slice(start, end)));
  } catch {
    return raw;
  }
}

function framesPath(text: string, frames: readonly Frame[]): string {
  return frames.reduce(
    (path, frame) => (frame.array ? childPath(path, frame.index) : childPath(path, frame.key ? decodeKey(text, frame.key) : '')),
    'body',
  );
}

/** Whether a character continues a number literal: a digit, a sign, a decimal point or an exponent mark. */
function inNumber(c: number): boolean {
  return (c >= DIGIT_0 && c <= DIGIT_9) || c === MINUS || c === PLUS || c === DOT || c === LOWER_E || c === UPPER_E;
}

/** A decimal literal as `<significant digits>e<exponent>`, sign and insignificant zeros dropped (`0` for zero). */
function significand(literal: string): string {
  const [mantissa = '', exponent = '0'] = literal.replace(/^-/, '').toLowerCase().split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let scale = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  scale += digits.length - trimmed.length;
  digits = trimmed;
  return `${digits}e${scale}`;
}

/**
 * Whether a number literal is not read as written: beyond a double's range (`1e400`), below it
 * (`1e-400` read as 0), or more precise than a double holds (`9007199254740993`, `1.00000000000000001`)
 * — parsers with wider numbers read another value. A literal reads as written when the shortest text
 * of the double it parses to has its digits (so `1.0` and `1e2` do).
 */
function readsOtherwise(literal: string): boolean {
  const digits = literal.charCodeAt(0) === MINUS ? literal.length - 1 : literal.length;
  if (digits <= EXACT_INTEGER_DIGITS && /^-?\d+$/.test(literal)) return false;
  const value = Number(literal);
  return !Number.isFinite(value) || significand(literal) !== significand(String(value));
}

/** What a linear scan found: the path of a container nested too deeply, else the first other refusal. */
interface ScanResult {
  tooDeep?: string;
  refusal?: RequestBoundaryError;
}

/**
 * One linear pass over the raw text, before JSON.parse builds anything: the path of the first
 * container nested deeper than `maxDepth` (the scan stops there: JSON.parse of a long run of `[`
 * costs far more than this pass), and the first field name given twice in one object or number not
 * read as written — JSON.parse keeps only a repeated field's last value and other parsers keep the
 * first, so what one reads is not what another acts on. Malformed text is left for JSON.parse to report.
 */
export function scanJsonText(text: string, maxDepth: number): ScanResult {
  const frames: Frame[] = [];
  let refusal: RequestBoundaryError | undefined;
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
        if (refusal === undefined) refusal = repeatedName(text, frames, top);
      }
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      while (i + 1 < text.length && inNumber(text.charCodeAt(i + 1))) i += 1;
      if (refusal === undefined && readsOtherwise(text.slice(start, i + 1))) {
        refusal = malformed(`${framesPath(text, frames)} is a number that does not read as written (out of range, or more digits than a 64-bit float holds)`);
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (frames.length >= maxDepth) return { tooDeep: framesPath(text, frames) };
      frames.push({ array: c === OPEN_ARRAY, index: 0, key: undefined, expectingKey: c === OPEN_OBJECT, names: undefined });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      frames.pop();
    } else if (c === COMMA && top) {
      if (top.array) top.index += 1;
      else top.expectingKey = true;
    }
  }
  return refusal === undefined ? {} : { refusal };
}

/** The refusal of the field name just read in `top` (the innermost object) when it has been given before there. */
function repeatedName(text: string, frames: readonly Frame[], top: Frame): RequestBoundaryError | undefined {
  if (top.key === undefined) return undefined;
  const name = decodeKey(text, top.key);
  top.names ??= new Set();
  if (!top.names.has(name)) {
    top.names.add(name);
    return undefined;
  }
  return malformed(`${framesPath(text, frames)} is given twice (a field name may appear once in an object)`);
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
 * array and object sizes, string and field-name lengths, no text PostgreSQL cannot store, no field
 * name twice in an object and no number that does not read as written.
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
  const scanned = scanJsonText(text, limits.depth);
  if (scanned.tooDeep !== undefined) throw tooComplex(`${scanned.tooDeep} is nested too deeply (at most ${limits.depth} levels)`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(INVALID_JSON_BODY);
  }
  if (scanned.refusal) throw scanned.refusal;
  checkValue(value, 'body', limits);
  return value;
}
