/**
 * Event lag: the process's one feed reader reads on the LISTEN connection, so an
 * event reaches the open streams even while every pooled connection is taken by requests — it never
 * queues behind them; and a stream that falls behind takes every queued batch at once, with one access
 * check, instead of one check per small batch (which fell further behind the faster it was fed); an
 * access check that fails is tried again rather than ending the stream.
 */
import { jest } from '@jest/globals';
import type pg from 'pg';
import { DataSource } from 'typeorm';
import { AccessService, ADMIN_CALLER, userCaller } from '#authorization';
import { QuestionEventService } from '#clarification';
import { BUNDLE_CHANNEL } from '#clarification/testing';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession } from '../../support/fixtures.js';
import { holdCalls } from '../../support/hold-calls.js';

const POOL_SIZE = 2;

describe('the event feed reader does not queue for the pool', () => {
  let t: TestApp;
  let pool: pg.Pool;

  beforeAll(async () => {
    t = await startApp({ config: { dbPoolSize: POOL_SIZE, dbPoolAcquireTimeoutMs: 60_000 } });
    pool = (t.app.get(DataSource).driver as unknown as { master: pg.Pool }).master;
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  async function writeEvent(fixture: { sessionId: string; taskId: string; workspaceId: string }, pendingId: string): Promise<string> {
    const written = await t.db.query<{ id: string }>(
      `WITH written AS (
         INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id)
         VALUES (pg_current_xact_id()::text::bigint * 65536, 'ASKED', $5, $1, $2, $3) RETURNING id)
       SELECT id::text AS id, pg_notify($4, '{}') IS NULL AS notified FROM written`,
      [fixture.sessionId, fixture.taskId, fixture.workspaceId, BUNDLE_CHANNEL, pendingId],
    );
    return written.rows[0].id;
  }

  it('an event committed while every pooled connection is held reaches an open stream', async () => {
    const fixture = await createRunningSession(t);
    const feed = t.app.get(QuestionEventService);
    // Caught up, a stream opened without a cursor starts live: it has nothing to replay from the pool.
    await feed.flushed();
    const stream = await feed.open(ADMIN_CALLER, {});
    const arriving = stream.next();
    const held = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
    try {
      const id = await writeEvent(fixture, 'feed-reader-probe');
      expect(pool.idleCount).toBe(0);
      const next = await arriving;
      expect(next.done).toBe(false);
      expect(next.value).toMatchObject({ id, pending_id: 'feed-reader-probe' });
      expect(pool.waitingCount).toBe(0);
    } finally {
      for (const client of held) client.release();
      await stream.return?.();
    }
  });

  it('a stream behind the feed takes every batch queued meanwhile at once: one access check for all of them', async () => {
    const fixture = await createRunningSession(t);
    const feed = t.app.get(QuestionEventService);
    const access = t.app.get(AccessService);
    const { calls: checks, release } = holdCalls(access, 'accessibleTaskIds');
    await feed.flushed();
    const stream = await feed.open(userCaller('feed-reader-user'), {});
    const arriving = stream.next();
    const ids: string[] = [];
    try {
      // Five batches: each event is read by itself before the next is written.
      for (let n = 0; n < 5; n += 1) {
        ids.push(await writeEvent(fixture, `feed-reader-batch-${n}`));
        await feed.flushed();
      }
      expect(checks).toHaveBeenCalledTimes(1);
      release();
      const received = [(await arriving).value as { id: string }];
      for (let n = 1; n < 5; n += 1) received.push((await stream.next()).value as { id: string });
      expect(received.map((event) => event.id)).toEqual(ids);
      expect(checks).toHaveBeenCalledTimes(2);
    } finally {
      release();
      await stream.return?.();
    }
  });

  it('an access check that fails (the database away for a moment) is tried again: the stream goes on and misses nothing', async () => {
    const fixture = await createRunningSession(t);
    const feed = t.app.get(QuestionEventService);
    const access = t.app.get(AccessService);
    const checks = jest.spyOn(access, 'accessibleTaskIds').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
    await feed.flushed();
    const stream = await feed.open(userCaller('feed-reader-user'), {});
    try {
      const arriving = stream.next();
      const id = await writeEvent(fixture, 'feed-reader-retried');
      const next = await arriving;
      expect(next.done).toBe(false);
      expect(next.value).toMatchObject({ id, pending_id: 'feed-reader-retried' });
      expect(checks).toHaveBeenCalledTimes(2);

      const later = await writeEvent(fixture, 'feed-reader-after-retry');
      expect((await stream.next()).value).toMatchObject({ id: later });
    } finally {
      await stream.return?.();
    }
  });
});
