import { isSignedBySlack, slackSignature } from './slack-signature.js';

describe('Slack request signatures (v0, HMAC-SHA256 over v0:timestamp:body)', () => {
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body = Buffer.from('token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&command=%2Fparley&text=link');
  const now = 1_531_420_618;

  it('accepts the signature of the exact body within 5 minutes', () => {
    const timestamp = String(now - 299);
    expect(isSignedBySlack(secret, { signature: slackSignature(secret, timestamp, body), timestamp }, body, now)).toBe(true);
  });

  it('refuses another secret, another body, a stale or future timestamp, and missing headers', () => {
    const timestamp = String(now);
    const signature = slackSignature(secret, timestamp, body);
    expect(isSignedBySlack('another-secret', { signature, timestamp }, body, now)).toBe(false);
    expect(isSignedBySlack(secret, { signature, timestamp }, Buffer.concat([body, Buffer.from('&x=1')]), now)).toBe(false);
    expect(isSignedBySlack(secret, { signature, timestamp }, body, now + 301)).toBe(false);
    expect(isSignedBySlack(secret, { signature, timestamp }, body, now - 301)).toBe(false);
    expect(isSignedBySlack(secret, { signature: undefined, timestamp }, body, now)).toBe(false);
    expect(isSignedBySlack(secret, { signature, timestamp: undefined }, body, now)).toBe(false);
    expect(isSignedBySlack(secret, { signature, timestamp: '1e9' }, body, now)).toBe(false);
  });
});
