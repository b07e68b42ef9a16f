import { actionDigest, parseAction } from './action.rules.js';

describe('parseAction', () => {
  it('accepts {name, arguments} and names the field of every bad one', () => {
    expect(parseAction({ name: 'deploy', arguments: { env: 'prod' } })).toEqual({ action: { name: 'deploy', arguments: { env: 'prod' } } });
    expect(parseAction('deploy')).toEqual({ problem: 'action must be an object {name, arguments}' });
    expect(parseAction(null)).toEqual({ problem: 'action must be an object {name, arguments}' });
    expect(parseAction({ name: 'n'.repeat(201), arguments: {} })).toEqual({ problem: 'action.name must be at most 200 characters' });
    expect(parseAction({ name: '😀'.repeat(200), arguments: {} })).toHaveProperty('action');
    expect(parseAction({ name: ' ', arguments: {} })).toEqual({ problem: 'action.name must be a non-empty string' });
    expect(parseAction({ name: 'deploy', arguments: null })).toEqual({ problem: 'action.arguments must be a JSON object' });
    expect(parseAction({ name: 'deploy', arguments: {}, why: 1 })).toEqual({ problem: 'action.why is not a field of an action (only name and arguments)' });
    expect(parseAction({ name: 'deploy', arguments: { a: 'x'.repeat(65_536) } })).toEqual({ problem: 'action.arguments must be at most 65536 bytes of JSON' });
    expect(parseAction({ name: 'deploy', arguments: { a: 'nul\u0000' } })).toHaveProperty('problem', expect.stringMatching(/^action\.arguments\.a contains a NUL/));
  });

  it('refuses a bidirectional control in the name, naming it', () => {
    for (const control of ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C']) {
      const hex = control.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0');
      expect(parseAction({ name: `refund${control}gpj.exe`, arguments: {} })).toEqual({ problem: `action.name must not contain the bidirectional control character U+${hex}` });
    }
    // Right-to-left text itself is a name like any other; only the controls are refused.
    expect(parseAction({ name: 'שלח', arguments: {} })).toHaveProperty('action');
    // In the arguments they are data (the inbox shows them escaped).
    expect(parseAction({ name: 'deploy', arguments: { note: 'a\u202Eb' } })).toHaveProperty('action');
  });

  it('refuses numbers in the arguments that parsers read differently: integers beyond ±(2^53−1), non-finite', () => {
    expect(parseAction({ name: 'pay', arguments: { cents: 2 ** 53 } })).toEqual({ problem: 'action.arguments.cents must be an integer from -9007199254740991 to 9007199254740991' });
    expect(parseAction({ name: 'pay', arguments: { to: [{ id: -(2 ** 53) }] } })).toEqual({ problem: 'action.arguments.to[0].id must be an integer from -9007199254740991 to 9007199254740991' });
    expect(parseAction({ name: 'pay', arguments: { n: 1e300 } })).toEqual({ problem: 'action.arguments.n must be an integer from -9007199254740991 to 9007199254740991' });
    expect(parseAction({ name: 'pay', arguments: { n: Infinity } })).toEqual({ problem: 'action.arguments.n must be a finite number' });
    expect(parseAction({ name: 'pay', arguments: { 'odd key': NaN } })).toEqual({ problem: 'action.arguments["odd key"] must be a finite number' });
    const fine = { max: Number.MAX_SAFE_INTEGER, min: Number.MIN_SAFE_INTEGER, ratio: 0.1, tiny: 5e-324, big: 1.5e15 + 0.5 };
    expect(parseAction({ name: 'pay', arguments: fine })).toEqual({ action: { name: 'pay', arguments: fine } });
  });
});

describe('actionDigest', () => {
  it('is the SHA-256 of the RFC 8785 form: key order and whitespace do not change it, a value does', () => {
    const digest = actionDigest({ name: 'deploy', arguments: { env: 'prod', n: 1, nested: { b: 2, a: 1 } } });
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(actionDigest(JSON.parse('{"arguments":{"nested":{"a":1,"b":2},"n":1.0,"env":"prod"},"name":"deploy"}') as never)).toBe(digest);
    expect(actionDigest({ name: 'deploy', arguments: { env: 'staging', n: 1, nested: { b: 2, a: 1 } } })).not.toBe(digest);
  });
});
