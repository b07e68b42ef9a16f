import { createHash } from 'node:crypto';
import { canonicalJson, sha256Hex } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and writes no spaces', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it('gives one text for values that differ only in key order', () => {
    expect(canonicalJson({ x: 1, y: { p: 1, q: 2 } })).toBe(canonicalJson({ y: { q: 2, p: 1 }, x: 1 }));
  });

  it('keeps array order (arrays are ordered values)', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('sorts keys by UTF-16 code units, not by locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4, _: 5 })).toBe('{"B":2,"_":5,"a":3,"b":1,"é":4}');
  });

  it('drops undefined fields and writes undefined array items as null, as JSON.stringify does', () => {
    const value = { a: undefined, b: [undefined, 1] };
    expect(canonicalJson(value)).toBe('{"b":[null,1]}');
    expect(canonicalJson(value)).toBe(JSON.stringify(value));
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('escapes strings and keys as JSON', () => {
    expect(canonicalJson({ 'a"b': 'line\nquote"\u0001' })).toBe('{"a\\"b":"line\\nquote\\"\\u0001"}');
  });

  it('is parseable back to an equal value', () => {
    const value = { schema: 1, nested: [{ k: 'v' }, [], {}], n: -0.5, s: '😀' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});

describe('sha256Hex', () => {
  it('is the hex SHA-256 of the UTF-8 text', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('é')).toBe(createHash('sha256').update(Buffer.from([0xc3, 0xa9])).digest('hex'));
  });
});
