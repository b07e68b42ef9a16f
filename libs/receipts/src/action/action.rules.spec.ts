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
});

describe('actionDigest', () => {
  it('is the SHA-256 of the RFC 8785 form: key order and whitespace do not change it, a value does', () => {
    const digest = actionDigest({ name: 'deploy', arguments: { env: 'prod', n: 1, nested: { b: 2, a: 1 } } });
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(actionDigest(JSON.parse('{"arguments":{"nested":{"a":1,"b":2},"n":1.0,"env":"prod"},"name":"deploy"}') as never)).toBe(digest);
    expect(actionDigest({ name: 'deploy', arguments: { env: 'staging', n: 1, nested: { b: 2, a: 1 } } })).not.toBe(digest);
  });
});
