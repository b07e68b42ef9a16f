import fc from 'fast-check';
import { JSON_BODY_LIMITS } from './input-limits.js';
import { EMPTY_JSON_BODY, INVALID_JSON_BODY, parseJsonBody, scanJsonText } from './json-body.parser.js';
import { RequestBoundaryError, RequestBoundaryErrorCode } from './request-boundary.error.js';

const parse = (text: string) => parseJsonBody(Buffer.from(text, 'utf8'));

function refusal(text: string | Buffer): RequestBoundaryError {
  try {
    parseJsonBody(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
  } catch (error) {
    if (error instanceof RequestBoundaryError) return error;
    throw error;
  }
  throw new Error('parseJsonBody accepted the body');
}

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const nested = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

describe('parseJsonBody: bounds checked while parsing', () => {
  it('parses what JSON.parse parses, for any JSON within the bounds', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'small', noUnicodeString: false }), (text) => {
        const expected: unknown = JSON.parse(text);
        fc.pre(!text.includes('__proto__') && depthOf(expected) <= JSON_BODY_LIMITS.depth);
        // NUL and surrogates (fc.json writes them as escapes) are the refusal cases, tested below.
        fc.pre(!/\\u0000|\\ud[89a-f][0-9a-f]{2}/i.test(text));
        expect(parse(text)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('the scan agrees with the real depth of any JSON value, and finds nothing else in what JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 }), (value, limit) => {
        const scanned = scanJsonText(JSON.stringify(value), limit);
        expect(scanned.tooDeep !== undefined).toBe(depthOf(value) > limit);
        expect(scanned.refusal).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a field name given twice in one object, wherever, naming it (JSON.parse would keep the last)', () => {
    for (const [text, message] of [
      ['{"a":1,"a":2}', 'body.a is given twice (a field name may appear once in an object)'],
      ['{"action":{"name":"deploy","arguments":{"env":"staging","env":"prod"}}}', 'body.action.arguments.env is given twice (a field name may appear once in an object)'],
      ['{"q":[{"x":1},{"y":1,"z":{},"y":2}]}', 'body.q[1].y is given twice (a field name may appear once in an object)'],
      ['{"e\u006ev":1,"env":2}', 'body.env is given twice (a field name may appear once in an object)'],
      ['{"a b":1,"a b":2}', 'body["a b"] is given twice (a field name may appear once in an object)'],
    ] as const) {
      const error = refusal(text);
      expect({ code: error.code, message: error.message, status: error.httpStatus }).toEqual({ code: RequestBoundaryErrorCode.Malformed, message, status: 400 });
    }
    // The same name in different objects, or as a value, is no repetition.
    expect(parse('{"a":{"a":"a"},"b":[{"a":1},{"a":2}]}')).toEqual({ a: { a: 'a' }, b: [{ a: 1 }, { a: 2 }] });
  });

  it('refuses a number that does not read as written, naming it; any number that does is accepted as before', () => {
    const message = (path: string) => `${path} is a number that does not read as written (out of range, or more digits than a 64-bit float holds)`;
    for (const [text, path] of [
      ['{"n":1e400}', 'body.n'],
      ['{"n":-1e400}', 'body.n'],
      ['{"n":1e-400}', 'body.n'],
      ['{"a":[1,9007199254740993]}', 'body.a[1]'],
      ['{"x":{"y":1.00000000000000001}}', 'body.x.y'],
      ['123456789012345678901234567890', 'body'],
    ] as const) {
      const error = refusal(text);
      expect({ code: error.code, message: error.message }).toEqual({ code: RequestBoundaryErrorCode.Malformed, message: message(path) });
    }
    const fine = '[0,-0,1,-1,1.0,0.10,1e2,1E+2,2.5e-3,0.1,0.30000000000000004,9007199254740991,9007199254740992,1e21,5e-324,1.7976931348623157e308,123456789012345]';
    expect(parse(fine)).toEqual(JSON.parse(fine));
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(parse(JSON.stringify({ n }))).toEqual({ n: JSON.parse(JSON.stringify(n)) as number });
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly 32 levels and refuses 33, naming the path of the container too deep', () => {
    expect(parse(nested(32))).toBeDefined();
    const error = refusal(nested(33));
    expect(error.code).toBe(RequestBoundaryErrorCode.BodyTooComplex);
    expect(error.message).toBe(`body${'[0]'.repeat(32)} is nested too deeply (at most 32 levels)`);
    expect(error.httpStatus).toBe(400);
  });

  it('names object fields, array indexes and odd keys in the path', () => {
    const options = `{"questions":[{"prompt":"p","options":[{"label":"a"},${nested(30)}]}]}`;
    expect(refusal(options).message).toBe(`body.questions[0].options[1]${'[0]'.repeat(28)} is nested too deeply (at most 32 levels)`);
    const oddKey = `{"a b":${nested(32)}}`;
    expect(refusal(oddKey).message).toBe(`body["a b"]${'[0]'.repeat(31)} is nested too deeply (at most 32 levels)`);
    const escapedKey = `{"x\\"y":{"z,}":${nested(31)}}}`;
    expect(refusal(escapedKey).message).toBe(`body["x\\"y"]["z,}"]${'[0]'.repeat(30)} is nested too deeply (at most 32 levels)`);
  });

  it('refuses a 600 KB run of nested arrays by the depth rule, before JSON.parse builds it', () => {
    const body = nested(300_000);
    expect(body.length).toBe(600_001);
    expect(refusal(body).message).toMatch(/^body(\[0\]){32} is nested too deeply \(at most 32 levels\)$/);
  });

  it('bounds array items, object fields, field names and strings, naming the path', () => {
    expect(refusal(JSON.stringify({ questions: new Array(1001).fill(0) })).message).toBe('body.questions has more than 1000 items');
    expect(parse(JSON.stringify({ questions: new Array(1000).fill(0) }))).toBeDefined();
    const wide = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    expect(refusal(JSON.stringify({ a: [wide] })).message).toBe('body.a[0] has more than 1000 fields');
    expect(refusal(JSON.stringify({ ['k'.repeat(201)]: 1 })).message).toBe('body has a field name longer than 200 characters');
    expect(refusal(JSON.stringify({ title: 't'.repeat(100_001) })).message).toBe('body.title is longer than 100000 characters');
    expect(parse(JSON.stringify({ title: 't'.repeat(100_000) }))).toEqual({ title: 't'.repeat(100_000) });
  });

  it('refuses NUL and lone surrogates in strings and field names, naming the path', () => {
    for (const [text, message] of [
      ['{"name":"a\\u0000b"}', 'body.name contains a NUL character (\\u0000), which cannot be stored'],
      ['{"q":[{"label":"\\ud800"}]}', 'body.q[0].label contains an unpaired UTF-16 surrogate, which cannot be stored'],
      ['{"q":["ok","\\udc00x"]}', 'body.q[1] contains an unpaired UTF-16 surrogate, which cannot be stored'],
      ['{"x":{"a\\u0000":1}}', 'body.x has a field name that contains a NUL character (\\u0000), which cannot be stored'],
    ] as const) {
      const error = refusal(text);
      expect(error.code).toBe(RequestBoundaryErrorCode.UnstorableText);
      expect(error.message).toBe(message);
    }
    expect(parse('{"emoji":"\\ud83d\\ude00"}')).toEqual({ emoji: '😀' });
  });

  it('refuses bodies that are empty, not JSON, not UTF-8 or carry __proto__', () => {
    expect(refusal('').message).toBe(EMPTY_JSON_BODY);
    expect(refusal('{"a": ').message).toBe(INVALID_JSON_BODY);
    expect(refusal(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])).message).toBe('body is not valid UTF-8');
    expect(refusal('{"a":{"__proto__":{"admin":true}}}').message).toBe('body.a has the forbidden field name "__proto__"');
  });

  it('never throws anything but a 400 RequestBoundaryError, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        try {
          parseJsonBody(Buffer.from(bytes));
        } catch (error) {
          expect(error).toBeInstanceOf(RequestBoundaryError);
          expect((error as RequestBoundaryError).httpStatus).toBe(400);
        }
      }),
      { numRuns: 500 },
    );
  });
});
