/**
 * Metrics: /metrics (prom-client text) and every metric moving on the real application —
 * active bundles, resolutions by outcome and surface, resolution latency per surface, live waiters,
 * resume hand-offs by outcome, event-feed lag, lifecycle events by name, database pool in use /
 * waiting, HTTP requests by route and status. /metrics is admin-only when auth is enabled (a denial looks like "not found").
 */
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import request from 'supertest';
import { QuestionEventService } from '#clarification';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { lifecycleCounts, lifecycleMoved } from '../../support/lifecycle-events.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { subscribe } from '../../support/graphql.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

/** The value of one sample (`name{labels}`), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const present = Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[2]);
  }
  return 0;
}

describe('metrics', () => {
  let t: TestApp;
  let webhook: WebhookReceiver;
  const scrape = async () => (await request(t.baseUrl).get('/metrics').expect(200)).text;
  const api = () => request(t.baseUrl);

  beforeAll(async () => {
    webhook = await startWebhookReceiver();
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
    await webhook.close();
  });

  async function ask(resumeUrl?: string): Promise<string> {
    const fixture = await createRunningSession(t, resumeUrl ? { resumeUrl } : {});
    const asked = await api().post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    return asked.body.pending_id as string;
  }

  it('is Prometheus text exposition', async () => {
    const res = await api().get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('# TYPE parley_resolutions_total counter');
    expect(res.text).toContain('# TYPE parley_process_cpu_seconds_total counter');
  });

  it('active bundles, resolutions by surface and outcome, latency per surface and resume hand-offs move with an answer', async () => {
    const before = await scrape();
    const pendingId = await ask();
    expect(sample(await scrape(), 'parley_active_bundles')).toBe(sample(before, 'parley_active_bundles') + 1);

    await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    const gql = await api()
      .post('/graphql')
      .send({ query: 'mutation($id: String!) { rejectQuestion(pendingId: $id, reason: "late") { claimed } }', variables: { id: pendingId } });
    expect(gql.status).toBe(200);
    const after = await scrape();
    expect(sample(after, 'parley_active_bundles')).toBe(sample(before, 'parley_active_bundles'));
    const resolutions = (surface: string, outcome: string) =>
      sample(after, 'parley_resolutions_total', { surface, outcome }) - sample(before, 'parley_resolutions_total', { surface, outcome });
    expect({ won: resolutions('rest', 'answered'), replayed: resolutions('rest', 'replayed'), graphql: resolutions('graphql', 'replayed') }).toEqual({
      won: 1,
      replayed: 1,
      graphql: 1,
    });
    const latency = (surface: string) =>
      sample(after, 'parley_resolution_duration_seconds_count', { surface }) - sample(before, 'parley_resolution_duration_seconds_count', { surface });
    expect({ rest: latency('rest'), graphql: latency('graphql') }).toEqual({ rest: 2, graphql: 1 });
    const handoffs = (outcome: string) => sample(after, 'parley_resume_handoffs_total', { outcome }) - sample(before, 'parley_resume_handoffs_total', { outcome });
    expect(handoffs('queued')).toBe(1);
  });

  it('a resume webhook that answers 2xx counts as an accepted hand-off, one that refuses as refused', async () => {
    const before = await scrape();
    const accepted = await ask(webhook.url);
    await api().post(`/api/v1/clarification/${accepted}/respond`).send({ answers: ANSWERS }).expect(200);
    webhook.respond = () => 503;
    const refused = await ask(webhook.url);
    await api().post(`/api/v1/clarification/${refused}/respond`).send({ answers: ANSWERS }).expect(500);
    const after = await scrape();
    const handoffs = (outcome: string) => sample(after, 'parley_resume_handoffs_total', { outcome }) - sample(before, 'parley_resume_handoffs_total', { outcome });
    expect({ accepted: handoffs('accepted'), refused: handoffs('refused') }).toEqual({ accepted: 1, refused: 1 });
  });

  it('live waiters count a blocked /wait until it is answered', async () => {
    const pendingId = await ask();
    const base = sample(await scrape(), 'parley_live_waiters');
    const waiting = api().get(`/api/v1/clarification/${pendingId}/wait`).then((res) => res.status);
    await eventually(async () => (sample(await scrape(), 'parley_live_waiters') === base + 1 ? true : undefined), 5000, 'the waiter counted');
    await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    expect(await waiting).toBe(200);
    await eventually(async () => (sample(await scrape(), 'parley_live_waiters') === base ? true : undefined), 5000, 'the waiter gone');
  });

  it('event-feed lag is observed for every event handed to a live subscriber', async () => {
    const before = sample(await scrape(), 'parley_event_feed_lag_seconds_count');
    const subscription = subscribe(t, 'subscription { questionEvents { id type } }');
    try {
      await subscription.connected;
      await ask();
      await subscription.waitFor(1, 10_000);
      await eventually(async () => (sample(await scrape(), 'parley_event_feed_lag_seconds_count') > before ? true : undefined), 5000, 'lag observed');
    } finally {
      await subscription.close();
    }
  });

  it('lifecycle events are counted by name: every series present from the start, each moving with its event', async () => {
    const before = await scrape();
    expect(before).toContain('# TYPE parley_lifecycle_events_total counter');
    expect(before).toMatch(/^parley_lifecycle_events_total\{event="clarification\.superseded"\} \d+$/m);
    const answered = await ask();
    await api().post(`/api/v1/clarification/${answered}/respond`).send({ answers: ANSWERS }).expect(200);
    const rejected = await ask();
    await api().post(`/api/v1/clarification/${rejected}/respond`).send({ rejected: true, reject_reason: 'not now' }).expect(200);
    const after = await scrape();
    const moved = (event: string) => sample(after, 'parley_lifecycle_events_total', { event }) - sample(before, 'parley_lifecycle_events_total', { event });
    expect({
      requested: moved('clarification.requested'),
      answered: moved('clarification.primary_answered'),
      dismissed: moved('clarification.stale_dismissed'),
      // Each ask and each resolution changes its session's messages once.
      messages: moved('session.message.updated'),
      cancelled: moved('clarification.cancelled'),
    }).toEqual({ requested: 2, answered: 1, dismissed: 1, messages: 4, cancelled: 0 });
  });

  it('each lifecycle event is counted once, by the replica that committed it, not by one that only hears of it', async () => {
    const replica = await startApp({ databaseUrl: t.databaseUrl });
    try {
      const onReplica = await lifecycleCounts(replica);
      const here = await lifecycleCounts(t);
      const pendingId = await ask();
      await api().post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
      // The replica has read the events (its feed is past them) before its counts are compared.
      await replica.app.get(QuestionEventService).flushed();
      expect(await lifecycleMoved(t, here)).toEqual({ 'clarification.requested': 1, 'clarification.primary_answered': 1, 'session.message.updated': 2 });
      expect(await lifecycleMoved(replica, onReplica)).toEqual({});
    } finally {
      await replica.close();
    }
  });

  it('HTTP requests by method, route pattern and status', async () => {
    const before = await scrape();
    await api().get('/healthz').expect(200);
    await api().get('/api/v1/tasks/does-not-exist').expect(404);
    const after = await scrape();
    const count = (labels: Record<string, string>) => sample(after, 'parley_http_requests_total', labels) - sample(before, 'parley_http_requests_total', labels);
    expect(count({ method: 'GET', route: '/healthz', status: '200' })).toBe(1);
    expect(count({ method: 'GET', route: '/api/v1/tasks/:id', status: '404' })).toBe(1);
  });
});

describe('metrics: the database pool', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Two connections, and a wait for one long enough that the test decides when it ends.
    t = await startApp({ config: { dbPoolSize: 2, dbConnectTimeoutMs: 60_000 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts connections in use and queries waiting for one', async () => {
    const appDb = t.app.get(DataSource);
    const pool = (appDb.driver as unknown as { master: Pool }).master;
    const holder = await t.db.connect();
    const key = 914_014;
    await holder.query('SELECT pg_advisory_lock($1)', [key]);
    // Three statements blocked on the lock the test holds: both connections in use, one statement waiting.
    const blocked = [1, 2, 3].map(() => appDb.query('SELECT pg_advisory_lock_shared($1), pg_advisory_unlock_shared($1)', [key]));
    let scraped: Promise<request.Response> | undefined;
    try {
      await eventually(() => (pool.waitingCount === 1 ? true : undefined), 10_000, 'a statement waiting for a connection');
      // The scrape reads the pool when it starts; its own count of active bundles then waits for a connection too.
      scraped = request(t.baseUrl).get('/metrics').then((res) => res);
      await eventually(() => (pool.waitingCount === 2 ? true : undefined), 10_000, 'the scrape collecting');
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
      holder.release();
      await Promise.all(blocked);
    }
    const busy = (await scraped)?.text ?? '';
    expect(sample(busy, 'parley_db_pool_connections', { state: 'in_use' })).toBe(2);
    expect(sample(busy, 'parley_db_pool_waiting')).toBeGreaterThanOrEqual(1);
  });
});

describe('metrics with auth enabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('is the admin token’s only', async () => {
    await request(t.baseUrl).get('/metrics').expect(401);
    await request(t.baseUrl).get('/metrics').set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`).expect(200);
  });
});
