import {
  errorFromResponse,
  isTransient,
  ParleyAuthError,
  ParleyConflictError,
  ParleyNotFoundError,
  ParleyRateLimitedError,
  ParleyServerError,
  ParleyUnreachableError,
  ParleyValidationError,
} from './parley.errors.js';

const headers = (entries: Record<string, string> = {}) => new Headers(entries);

describe('errorFromResponse', () => {
  it('maps each status to its class and keeps the server’s code and message', () => {
    const cases: Array<[number, string, new (...args: never[]) => Error]> = [
      [400, 'VALIDATION_ERROR', ParleyValidationError],
      [401, 'UNAUTHENTICATED', ParleyAuthError],
      [403, 'FORBIDDEN', ParleyAuthError],
      [404, 'NOT_FOUND', ParleyNotFoundError],
      [409, 'EXPIRED', ParleyConflictError],
      [503, 'UNAVAILABLE', ParleyServerError],
      [504, 'WAIT_ENDED', ParleyServerError],
    ];
    for (const [status, code, type] of cases) {
      const error = errorFromResponse(status, { error: `it was ${status}`, code }, headers());
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ code, status, message: `it was ${status}` });
    }
  });

  it('reads Retry-After on 429 and the request id of a 5xx', () => {
    const limited = errorFromResponse(429, { error: 'slow down', code: 'RATE_LIMITED' }, headers({ 'retry-after': '3' }));
    expect(limited).toBeInstanceOf(ParleyRateLimitedError);
    expect((limited as ParleyRateLimitedError).retryAfterMs).toBe(3_000);
    expect(errorFromResponse(500, { error: 'boom', code: 'INTERNAL_ERROR', request_id: 'req-1' }, headers())).toMatchObject({ requestId: 'req-1' });
  });

  it('a body that is not the server’s error shape is UNEXPECTED_RESPONSE (a proxy’s page, say)', () => {
    expect(errorFromResponse(502, '<html>bad gateway</html>', headers({ 'x-request-id': 'edge-7' }))).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 502, requestId: 'edge-7' });
  });
});

describe('isTransient', () => {
  it('retries what may pass (unreachable, 5xx, 429) and nothing a 4xx decided', () => {
    expect(isTransient(new ParleyUnreachableError('http://x', new Error('fetch failed')))).toBe(true);
    expect(isTransient(errorFromResponse(503, { error: 'db away', code: 'UNAVAILABLE' }, headers()))).toBe(true);
    expect(isTransient(errorFromResponse(429, { error: 'slow', code: 'RATE_LIMITED' }, headers()))).toBe(true);
    expect(isTransient(errorFromResponse(404, { error: 'gone', code: 'NOT_FOUND' }, headers()))).toBe(false);
    expect(isTransient(errorFromResponse(400, { error: 'bad', code: 'VALIDATION_ERROR' }, headers()))).toBe(false);
    expect(isTransient(new Error('a bug'))).toBe(false);
  });

  it('an unreachable server’s message names the URL and the network cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(new ParleyUnreachableError('http://127.0.0.1:9', Object.assign(new TypeError('fetch failed'), { cause })).message).toBe(
      'Parley is not reachable at http://127.0.0.1:9: fetch failed (ECONNREFUSED)',
    );
  });
});
