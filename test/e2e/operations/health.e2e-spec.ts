import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers /healthz and /readyz', async () => {
    await request(t.baseUrl).get('/healthz').expect(200, { status: 'ok' });
    await request(t.baseUrl).get('/readyz').expect(200, { status: 'ready' });
  });
});
