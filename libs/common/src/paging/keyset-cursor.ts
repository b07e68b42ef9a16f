/**
 * The one keyset-cursor codec of the service: an opaque base64url of a JSON array `[instant, id]` —
 * the position of the last row of a page ordered by (timestamp, id). Decoding is strict: a cursor is
 * either exactly what `encodeCursor` made, or refused (never reaching SQL with an impossible value).
 */
export interface CursorPosition {
  /** A UTC instant with microsecond precision, `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  at: string;
  /** The row's id (the tiebreak). */
  id: string;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{6})Z$/;
const MAX_CURSOR_LENGTH = 1024;
const MAX_ID_LENGTH = 256;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Text PostgreSQL cannot store: NUL, and UTF-16 surrogates that are not part of a pair. */
function unstorable(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text);
}

/**
 * A real instant PostgreSQL accepts: Date.parse rolls impossible dates over (Feb 30 ⇒ Mar 1) and
 * accepts year 0, both of which PostgreSQL rejects, so the date must survive a round trip.
 */
export function isCursorInstant(value: string): boolean {
  return INSTANT.test(value) && isCalendarDate(value);
}

/**
 * Whether the date and time of an ISO 8601 / RFC 3339 string name a real moment: a real day of a
 * real month of a year from 1 (no Feb 30, no year 0), hours below 24, minutes and seconds below 60.
 */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2}))?/.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  if (year === 0 || month === undefined || month < 1 || month > 12 || (hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) return false;
  return day !== undefined && day >= 1 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

/** The position a cursor made by `encodeCursor` names, or undefined when it is anything else. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let keys: unknown;
  try {
    keys = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(keys) || keys.length !== 2) return undefined;
  const [at, id] = keys as unknown[];
  if (typeof at !== 'string' || !isCursorInstant(at)) return undefined;
  if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH || unstorable(id)) return undefined;
  const position = { at, id };
  return encodeCursor(position) === cursor ? position : undefined;
}
