/**
 * CORS and security headers: CORS (@fastify/cors) is off unless CORS_ORIGINS names origins —
 * then only those get `Access-Control-Allow-Origin`, never with credentials; every response carries
 * helmet's headers with one Content-Security-Policy — a parked long poll's answer, written raw, the
 * same ones (they are added as a response is sent) — and the browser inbox,
 * GraphiQL and Swagger UI load under it in a real Chromium with no CSP violation.
 */
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { type BrowserSession, describeInChromium, openBrowser } from '../../support/browser.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { loadConfig } from '#config';

/** Every header but those that differ from one response to the next. */
function stableHeaders(headers: Record<string, string>): Record<string, string> {
  const varying = new Set(['date', 'x-request-id', 'content-length', 'etag', 'ratelimit', 'ratelimit-policy']);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)));
}

const ALLOWED = 'https://app.example.com';
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];
const OTHER = 'https://evil.example.com';

function preflight(t: TestApp, origin: string) {
  return request(t.baseUrl)
    .options('/api/v1/clarification')
    .set('origin', origin)
    .set('access-control-request-method', 'GET')
    .set('access-control-request-headers', 'authorization');
}

describe('CORS off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends no CORS header to any origin, and a preflight finds no route', async () => {
    const res = await request(t.baseUrl).get('/api/v1/clarification').set('origin', ALLOWED).expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await preflight(t, ALLOWED);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.status).toBe(404);
  });

  it('sends the security headers on every response, one strict CSP', async () => {
    for (const path of ['/', '/healthz', '/api/v1/tasks', '/does-not-exist']) {
      const res = await request(t.baseUrl).get(path);
      expect({ path, csp: res.headers['content-security-policy'] }).toEqual({ path, csp: expect.stringContaining("script-src 'self'") });
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('a parked /wait answers — 200, or a 504 once cancelled — with exactly the headers of a normal GET', async () => {
    const fixture = await createRunningSession(t);
    const parkedAnswer = async (pendingId: string, end: () => Promise<unknown>) => {
      const waiting = request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`).then((res) => res);
      await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) === 1 ? true : undefined), 5000, 'the wait parked');
      await end();
      return waiting;
    };
    const ask = async () =>
      (await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200)).body
        .pending_id as string;

    const answeredId = await ask();
    const answered = await parkedAnswer(answeredId, () =>
      request(t.baseUrl)
        .post(`/api/v1/clarification/${answeredId}/respond`)
        .send({ answers: ANSWERS })
        .expect(200),
    );
    const cancelledId = await ask();
    const cancelled = await parkedAnswer(cancelledId, () => request(t.baseUrl).post(`/api/v1/clarification/${cancelledId}/cancel`).expect(200));
    const normal = await request(t.baseUrl).get(`/api/v1/clarification/${answeredId}`).expect(200);
    expect(normal.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    expect({ status: answered.status, headers: stableHeaders(answered.headers) }).toEqual({ status: 200, headers: stableHeaders(normal.headers) });
    expect({ status: cancelled.status, headers: stableHeaders(cancelled.headers) }).toEqual({ status: 504, headers: stableHeaders(normal.headers) });
    expect(answered.headers['x-request-id']).toEqual(expect.any(String));
  });
});

describe('CORS on (CORS_ORIGINS)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { corsOrigins: [ALLOWED] } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('allows the configured origin (without credentials) and no other', async () => {
    const pre = await preflight(t, ALLOWED).expect(204);
    expect(pre.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(pre.headers['access-control-allow-headers']).toContain('authorization');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const res = await request(t.baseUrl).get('/api/v1/clarification').set('origin', ALLOWED).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-expose-headers']).toContain('x-request-id');

    const refused = await request(t.baseUrl).get('/api/v1/clarification').set('origin', OTHER).expect(200);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(t, OTHER)).headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS configuration', () => {
  it('is a list of origins or *, and anything else names the variable', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: `${ALLOWED}, http://localhost:5173` }).corsOrigins).toEqual([ALLOWED, 'http://localhost:5173']);
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.com' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(/CORS_ORIGINS/);
  });
});

describeInChromium('the CSP in a browser', () => {
  let t: TestApp;
  let browser: BrowserSession;
  beforeAll(async () => {
    t = await startApp(); // auth disabled: GraphiQL is served by default
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser.close();
    await t.close();
  });

  it.each([
    ['the inbox', '/', 'main'],
    ['Swagger UI', '/docs', '.swagger-ui .info'],
    ['GraphiQL', '/graphiql', '.graphiql-container'],
  ])('%s loads with no CSP violation', async (_name, path, ready) => {
    const page = await browser.context.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusals.push(message.text());
    });
    await page.addInitScript(
      "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (event) => window.cspViolations.push(event.violatedDirective + ' ' + event.blockedURI));",
    );
    await page.goto(`${t.baseUrl}${path}`);
    await page.waitForSelector(ready);
    const violations = [...refusals, ...(await page.evaluate<string[]>('window.cspViolations'))];
    await page.close();
    expect(violations).toEqual([]);
  });
});
