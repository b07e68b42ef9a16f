import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type pg from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from '#common';
import { createDataSource, DEFAULT_POOL_OPTIONS } from '#persistence';
import { startApp, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';

/**
 * The waiters' burst: waiting for a free pooled connection and opening a new one have
 * separate bounds. A request queued behind a full pool waits past DB_CONNECT_TIMEOUT_MS (up to
 * DB_POOL_ACQUIRE_TIMEOUT_MS) and is served when a connection frees up, or ends with the 503 of an
 * unavailable database; a connection the database does not open still fails on the short connect
 * bound, whatever the acquire bound.
 */
/** Short, but not so short that opening a connection on a busy machine (two test workers) misses it. */
const CONNECT_TIMEOUT_MS = 1_000;
const ACQUIRE_TIMEOUT_MS = 8_000;
const POOL_SIZE = 2;

describe('pool acquire bound vs connect bound (DB_POOL_ACQUIRE_TIMEOUT_MS)', () => {
  let t: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    t = await startApp({
      config: { dbPoolSize: POOL_SIZE, dbConnectTimeoutMs: CONNECT_TIMEOUT_MS, dbPoolAcquireTimeoutMs: ACQUIRE_TIMEOUT_MS },
    });
    pool = (t.app.get(DataSource).driver as unknown as { master: pg.Pool }).master;
  });
  afterAll(async () => {
    await t.close();
  });

  /** Every connection of the app's pool, taken from under it (background work queues too). */
  const holdAll = () => Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
  const get = () => request(t.baseUrl).get(`/api/v1/clarification/${randomUUID()}`).then((res) => res);

  it('a request queued behind a full pool waits past the connect bound and is served once a connection frees up', async () => {
    const held = await holdAll();
    const queuedAt = Date.now();
    let settled = false;
    const pending = get().finally(() => {
      settled = true;
    });
    await eventually(() => (pool.waitingCount > 0 ? true : undefined), 5_000, 'a queued acquire');
    await eventually(() => (Date.now() - queuedAt > 3 * CONNECT_TIMEOUT_MS ? true : undefined), 10_000, 'three connect bounds passing');
    expect(settled).toBe(false);
    for (const client of held) client.release();
    const res = await pending;
    expect(res.status).toBe(404);
  }, 30_000);

  it('a request that cannot get a connection within DB_POOL_ACQUIRE_TIMEOUT_MS ends with the 503 of an unavailable database', async () => {
    const held = await holdAll();
    try {
      const res = await get();
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: 'the database is unavailable; retry shortly', code: 'UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('2');
    } finally {
      for (const client of held) client.release();
    }
    await request(t.baseUrl).get(`/api/v1/clarification/${randomUUID()}`).expect(404);
  }, 30_000);

  /**
   * The acquire bound is ten minutes here — longer than this test may run — so the failure can only
   * come from the connect bound. A server that accepts the connection and never answers is what a
   * hung PostgreSQL looks like; a refused one is a stopped PostgreSQL.
   */
  it('a connection the database never opens fails on the connect bound, not the acquire bound (503 shape)', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const refused = net.createServer();
    await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
    const refusedPort = (refused.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => refused.close(() => resolve()));
    const options = { ...DEFAULT_POOL_OPTIONS, connectTimeoutMs: CONNECT_TIMEOUT_MS, acquireTimeoutMs: 10 * 60_000 };
    try {
      const failures: unknown[] = [];
      for (const url of [`postgres://parley@127.0.0.1:${port}/parley`, `postgres://parley@127.0.0.1:${refusedPort}/parley`]) {
        failures.push(await createDataSource(url, options).initialize().then(() => 'connected', (error: unknown) => error));
      }
      expect(failures.map((failure) => (failure as { message?: unknown }).message)).toEqual([
        'timeout expired',
        expect.stringContaining('ECONNREFUSED'),
      ]);
      expect(failures.map((failure) => isDatabaseUnavailable(failure))).toEqual([true, true]);
    } finally {
      silent.close();
    }
  }, 30_000);
});
