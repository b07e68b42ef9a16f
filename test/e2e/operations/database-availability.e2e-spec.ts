import { DatabaseAvailability } from '#persistence';
import { startApp, type TestApp } from '../../support/app.js';

/**
 * A claim that fails because the database went away is a 503, not a 500 — also when the
 * failure's shape is not one the classifier knows, as long as the database does not answer after it.
 * (The stopped-database side runs in test/faults/database-outage.e2e-spec.ts under load.)
 */
describe('DatabaseAvailability: is a failure explained by the database going away?', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('a recognized connection failure is', async () => {
    await expect(t.app.get(DatabaseAvailability).explains(new Error('Connection terminated unexpectedly'))).resolves.toBe(true);
  });

  it('an unrecognized failure while the database answers is not (it stays a 500)', async () => {
    await expect(t.app.get(DatabaseAvailability).explains(new TypeError('cannot read properties of undefined'))).resolves.toBe(false);
  });
});
