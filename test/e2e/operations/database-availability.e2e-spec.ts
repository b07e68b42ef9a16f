import { DataSource } from 'typeorm';
import { DatabaseAvailability, inTransaction } from '#persistence';
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

  it('a transaction whose connection is terminated between its statements fails as unavailable, though the database answers after', async () => {
    const dataSource = t.app.get(DataSource);
    const failure = await inTransaction(dataSource, async (manager) => {
      const [{ pid }] = await manager.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      await dataSource.query('SELECT pg_terminate_backend($1)', [pid]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await manager.query('SELECT 1');
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    await expect(t.app.get(DatabaseAvailability).explains(failure)).resolves.toBe(true);
    await expect(dataSource.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  });
});
