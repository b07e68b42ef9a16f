import { type CursorPosition, decodeCursor, encodeCursor, isCalendarDate, isCursorInstant } from './keyset-cursor.js';

/** The base64url of any text: how a hand-made (or tampered) cursor is written. */
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('keyset cursor codec', () => {
  const position: CursorPosition = { at: '2024-02-29T23:59:59.123456Z', id: 'a1b2c3d4-0000-4000-8000-000000000001' };

  it('encodes the position as the base64url of the JSON array [at, id]', () => {
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).toBe(JSON.stringify([position.at, position.id]));
  });

  it.each([
    ['a uuid', position],
    ['a non-ASCII id', { at: '0001-01-01T00:00:00.000000Z', id: 'é✓😀' }],
    ['the longest id', { at: '9999-12-31T23:59:59.999999Z', id: 'x'.repeat(256) }],
  ])('decodes what it encoded (%s)', (_, value) => {
    expect(decodeCursor(encodeCursor(value))).toEqual(value);
  });

  it.each([
    ['empty', ''],
    ['not base64url (padding)', `${encodeCursor(position)}=`],
    ['not base64url (standard alphabet)', '+/+/'],
    ['not JSON', b64('not json')],
    ['a JSON object', b64(JSON.stringify({ at: position.at, id: position.id }))],
    ['one key', b64(JSON.stringify([position.at]))],
    ['three keys', b64(JSON.stringify([position.at, position.id, 'x']))],
    ['keys in the wrong order', b64(JSON.stringify([position.id, position.at]))],
    ['a number as id', b64(JSON.stringify([position.at, 7]))],
    ['an empty id', b64(JSON.stringify([position.at, '']))],
    ['an id over 256 characters', b64(JSON.stringify([position.at, 'x'.repeat(257)]))],
    ['an id with NUL', b64(JSON.stringify([position.at, 'a\u0000b']))],
    ['an id with a lone surrogate', b64(JSON.stringify([position.at, 'a\ud800b']))],
    ['an instant without microseconds', b64(JSON.stringify(['2024-01-01T00:00:00.000Z', position.id]))],
    ['an instant with an offset', b64(JSON.stringify(['2024-01-01T00:00:00.000000+01:00', position.id]))],
    ['February 30 (Date.parse rolls it to March 1)', b64(JSON.stringify(['2023-02-30T00:00:00.000000Z', position.id]))],
    ['February 29 of a common year', b64(JSON.stringify(['2023-02-29T00:00:00.000000Z', position.id]))],
    ['year 0', b64(JSON.stringify(['0000-01-01T00:00:00.000000Z', position.id]))],
    ['hour 24', b64(JSON.stringify(['2024-01-01T24:00:00.000000Z', position.id]))],
    ['second 60', b64(JSON.stringify(['2024-01-01T23:59:60.000000Z', position.id]))],
    ['over 1024 characters', 'A'.repeat(1025)],
  ])('refuses a cursor that is %s', (_, cursor) => {
    expect(decodeCursor(cursor)).toBeUndefined();
  });

  it('refuses JSON that decodes to the right keys but is not the encoding (spaces)', () => {
    const spaced = b64(`[ ${JSON.stringify(position.at)}, ${JSON.stringify(position.id)} ]`);
    expect(JSON.parse(Buffer.from(spaced, 'base64url').toString('utf8'))).toEqual([position.at, position.id]);
    expect(decodeCursor(spaced)).toBeUndefined();
  });

  it('refuses an escaped spelling of the same id (only the one encoding is a cursor)', () => {
    const escaped = b64(`[${JSON.stringify(position.at)},"\\u0061bc"]`);
    expect(decodeCursor(escaped)).toBeUndefined();
    expect(decodeCursor(encodeCursor({ at: position.at, id: 'abc' }))).toEqual({ at: position.at, id: 'abc' });
  });
});

describe('isCursorInstant and isCalendarDate', () => {
  it.each([
    ['2024-02-29T00:00:00.000000Z', true],
    ['2000-02-29T12:30:45.000001Z', true],
    ['1900-02-29T00:00:00.000000Z', false],
    ['2024-04-31T00:00:00.000000Z', false],
    ['2024-13-01T00:00:00.000000Z', false],
    ['2024-00-10T00:00:00.000000Z', false],
    ['2024-01-00T00:00:00.000000Z', false],
    ['2024-01-01T00:60:00.000000Z', false],
    ['2024-01-01 00:00:00.000000Z', false],
    ['2024-01-01T00:00:00.000000z', false],
  ])('isCursorInstant(%j) ⇒ %s', (value, expected) => {
    expect(isCursorInstant(value)).toBe(expected);
  });

  it.each([
    ['2024-02-29', true],
    ['2024-02-29T23:59:59+05:00', true],
    ['2024-02-29 23:59:59', true],
    ['2024-02-29t10:00:00Z', true],
    ['2023-02-29', false],
    ['2024-06-31', false],
    ['0000-06-01', false],
    ['2024-06-01T24:00:00Z', false],
    ['2024-06-01T23:60:00Z', false],
    ['June 1st', false],
    ['', false],
  ])('isCalendarDate(%j) ⇒ %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });
});
