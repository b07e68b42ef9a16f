import { childPath, findUnstorableText, unstorableTextReason } from './storable-text.js';

describe('unstorableTextReason', () => {
  it.each([
    ['plain ASCII', 'hello'],
    ['empty text', ''],
    ['a surrogate pair (an emoji)', 'ok 😀'],
    ['U+FFFD itself', '\ufffd'],
    ['other controls', '\u0001\t\n\u007f'],
    ['the highest code point', '\u{10ffff}'],
  ])('stores %s', (_, text) => {
    expect(unstorableTextReason(text)).toBeUndefined();
  });

  it.each([
    ['NUL alone', '\u0000'],
    ['NUL inside text', 'a\u0000b'],
  ])('refuses %s, naming NUL', (_, text) => {
    expect(unstorableTextReason(text)).toBe('contains a NUL character (\\u0000), which cannot be stored');
  });

  it.each([
    ['a lone high surrogate', 'a\ud83d'],
    ['a lone low surrogate', '\ude00b'],
    ['a pair in the wrong order', '\ude00\ud83d'],
    ['a high surrogate followed by a pair', '\ud83d\ud83d\ude00'],
  ])('refuses %s', (_, text) => {
    expect(unstorableTextReason(text)).toBe('contains an unpaired UTF-16 surrogate, which cannot be stored');
  });

  it('names NUL first when text has both', () => {
    expect(unstorableTextReason('\ud800\u0000')).toMatch(/NUL/);
  });
});

describe('childPath', () => {
  it.each([
    ['body', 0, 'body[0]'],
    ['body', 'name', 'body.name'],
    ['body', '_x$1', 'body._x$1'],
    ['body', 'odd key', 'body["odd key"]'],
    ['body', '1st', 'body["1st"]'],
    ['body', '', 'body[""]'],
    ['body', 'a"b', 'body["a\\"b"]'],
  ])('childPath(%j, %j) ⇒ %s', (parent, key, expected) => {
    expect(childPath(parent, key)).toBe(expected);
  });
});

describe('findUnstorableText', () => {
  it('finds nothing in storable values of every shape', () => {
    expect(findUnstorableText({ a: ['x', 1, null, true, { b: 'y😀' }], c: undefined }, 'body')).toBeUndefined();
    expect(findUnstorableText(42, 'body')).toBeUndefined();
    expect(findUnstorableText(null, 'body')).toBeUndefined();
  });

  it('names the path of a string deep inside', () => {
    expect(findUnstorableText({ answers: [{ text: 'ok' }, { 'custom text': 'a\u0000' }] }, 'body')).toBe(
      'body.answers[1]["custom text"] contains a NUL character (\\u0000), which cannot be stored',
    );
  });

  it('names a field name that cannot be stored, at the object holding it', () => {
    expect(findUnstorableText({ outer: { 'bad\ud800': 'fine' } }, 'variables')).toBe(
      'variables.outer has a field name that contains an unpaired UTF-16 surrogate, which cannot be stored',
    );
  });

  it('reports the first offender in order, a top-level string under its own path', () => {
    expect(findUnstorableText(['\ud800', '\u0000'], 'ids')).toMatch(/^ids\[0\] contains an unpaired/);
    expect(findUnstorableText('\u0000', 'query.cursor')).toMatch(/^query\.cursor contains a NUL/);
  });
});
