/**
 * Target 6 of docs/benchmarks.md, sustained load: a sustained mixed workload against the built server in its own process — agents
 * that ask, long-poll their answer with their agent token (/wait) and ask again; people who answer
 * (REST respond) and list (REST list); one GraphQL `questionEvents` subscriber. Reports RSS at 1 min
 * vs at the end, errors, and the event feed's lag (answer → ANSWERED event at the subscriber).
 *
 * Environment: BENCH_SUSTAINED_S (600: the target's 10 minutes), BENCH_SUSTAINED_AGENTS (32 sessions
 * cycling ask → wait → answer), BENCH_SUSTAINED_RATE (answers per second over all agents, 55 by
 * default: with one ASKED and one ANSWERED per cycle, the event rate the workload of the before-figures
 * produced, docs/benchmarks.md "6. Sustained load"; 0 = every agent as fast as it can, which saturates this machine), BENCH_SUSTAINED_LISTERS
 * (2 clients listing back to back).
 */
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { ANSWERS, HttpClient } from './support/answer-clients.js';
import { BENCH_ADMIN_TOKEN, createUserWithToken } from './support/app.js';
import { type BenchServer, startBenchServer } from './support/database.js';
import { envInt, fixed, percentile } from './support/env.js';
import type { HeapReading } from './support/heap-probe.js';
import { machineLine, progress, Report, ratioVerdict } from './support/report.js';
import { agentTokenOf, seed, seededIds } from './support/seed.js';
import { BenchServerProcess } from './support/server-process.js';

const DURATION_S = envInt('BENCH_SUSTAINED_S', 600);
const AGENTS = envInt('BENCH_SUSTAINED_AGENTS', 32);
const LISTERS = envInt('BENCH_SUSTAINED_LISTERS', 2);
const RATE = envInt('BENCH_SUSTAINED_RATE', 55);
/** How often one agent may start a cycle, so that all of them together answer RATE times a second. */
const CYCLE_MS = RATE > 0 ? (AGENTS * 1000) / RATE : 0;
const SAMPLE_EVERY_S = 10;
const QUESTIONS = [{ id: 'q1', prompt: 'Proceed?', options: [{ option_id: 'q1_yes', label: 'Yes' }, { option_id: 'q1_no', label: 'No' }] }];
const EVENTS = `subscription { questionEvents { id type pendingId } }`;

interface Counters {
  asks: number;
  answers: number;
  waits: number;
  lists: number;
  events: number;
  errors: string[];
}

interface Sample {
  atS: number;
  reading: HeapReading;
}

function recordError(counters: Counters, what: string): void {
  if (counters.errors.length < 20) counters.errors.push(what);
  else counters.errors.push('…');
  counters.errors.length = Math.min(counters.errors.length, 21);
}


interface FeedLagBucket {
  le: number;
  count: number;
}

/** The cumulative buckets of the server's event-feed lag histogram, from its Prometheus text. */
function feedLagBuckets(metrics: string): FeedLagBucket[] {
  return [...metrics.matchAll(/^parley_event_feed_lag_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].map(([, le, count]) => ({
    le: le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le),
    count: Number(count),
  }));
}

export async function run(report: Report): Promise<void> {
  const server: BenchServer = await startBenchServer();
  try {
    const url = await server.createDatabase('sustained');
    const setup = await BenchServerProcess.start(url);
    const user = await createUserWithToken(setup.baseUrl, 'person');
    await setup.stop();
    const db = new pg.Pool({ connectionString: url, max: 2 });
    try {
      await seed(db, { bundles: AGENTS, ownerId: user.userId, questions: 1 });
    } finally {
      await db.end();
    }
    // Keep-alive sockets outlive the pauses of a busy client, so a request never races the server closing its idle socket.
    const target = await BenchServerProcess.start(url, { WAIT_TIMEOUT_MS: '600000', KEEP_ALIVE_TIMEOUT_MS: '120000' });
    const client = new HttpClient(target.baseUrl, AGENTS * 2 + LISTERS + 4);
    const counters: Counters = { asks: 0, answers: 0, waits: 0, lists: 0, events: 0, errors: [] };
    let errorCount = 0;
    const fail = (what: string) => {
      errorCount += 1;
      recordError(counters, what);
    };
    const answeredAt = new Map<string, { sent: number; responded: number }>();
    /** ANSWERED events that reached the subscriber before the respond's own 200 reached its client (a negative lag). */
    const earlyEvents = new Map<string, number>();
    const lags: { atS: number; fromResponse: number; fromSend: number }[] = [];
    const answerLatency: number[] = [];
    const listLatency: number[] = [];
    const samples: Sample[] = [];
    let feedLag: FeedLagBucket[] = [];
    const started = performance.now();
    const elapsedS = () => (performance.now() - started) / 1000;
    const deadline = started + DURATION_S * 1000;

    const subscriber = createClient({
      url: `${target.baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${user.token}` },
      retryAttempts: 0,
    });
    let subscribed!: () => void;
    const ready = new Promise<void>((resolve) => (subscribed = resolve));
    const unsubscribe = subscriber.subscribe<{ questionEvents: { id: string; type: string; pendingId: string } }>(
      { query: EVENTS },
      {
        next: (message) => {
          const event = message.data?.questionEvents;
          if (!event) return fail(`subscription payload without data: ${JSON.stringify(message.errors ?? [])}`);
          counters.events += 1;
          if (event.type !== 'ANSWERED') return;
          const now = performance.now();
          const answered = answeredAt.get(event.pendingId);
          if (!answered) {
            earlyEvents.set(event.pendingId, now);
            return;
          }
          answeredAt.delete(event.pendingId);
          lags.push({ atS: elapsedS(), fromResponse: now - answered.responded, fromSend: now - answered.sent });
        },
        error: (error) => fail(`subscription ended: ${String(error)}`),
        complete: () => undefined,
      },
    );
    subscriber.on('connected', () => subscribed());
    await ready;

    /** A request that failed on the wire (reset, refused) is an error of the run, not the end of it. */
    const send = (method: string, route: string, bearer: string, body?: unknown) =>
      client.request(method, route, bearer, body).catch((error: unknown) => ({ status: -1, body: error instanceof Error ? error.message : String(error) }));
    /** One agent's session: wait for its bundle's answer while a person answers it, then ask again. */
    const agent = async (index: number) => {
      let pendingId = seededIds(index).pendingId;
      const { sessionId } = seededIds(index);
      // Paced agents start spread over one cycle, so the answers arrive evenly rather than in waves.
      let nextCycle = performance.now() + (CYCLE_MS * index) / AGENTS;
      while (performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, nextCycle - performance.now())));
        nextCycle += CYCLE_MS;
        if (performance.now() >= deadline) break;
        const waited = send('GET', `/api/v1/clarification/${pendingId}/wait`, agentTokenOf(index));
        const sent = performance.now();
        let answered = await send('POST', `/api/v1/clarification/${pendingId}/respond`, user.token, { answers: ANSWERS });
        // A lost response is retried (a replay answers 200 too), so the agent's wait is never left hanging.
        for (let retry = 0; retry < 3 && answered.status === -1; retry++) {
          fail(`respond: ${answered.body}`);
          answered = await send('POST', `/api/v1/clarification/${pendingId}/respond`, user.token, { answers: ANSWERS });
        }
        const responded = performance.now();
        answerLatency.push(responded - sent);
        if (answered.status === 200) {
          counters.answers += 1;
          const early = earlyEvents.get(pendingId);
          earlyEvents.delete(pendingId);
          if (early === undefined) answeredAt.set(pendingId, { sent, responded });
          else lags.push({ atS: elapsedS(), fromResponse: early - responded, fromSend: early - sent });
        } else fail(`respond ${answered.status}: ${answered.body.slice(0, 200)}`);
        const wait = await waited;
        if (wait.status === 200) counters.waits += 1;
        else fail(`wait ${wait.status}: ${wait.body.slice(0, 200)}`);
        const asked = await send('POST', '/api/v1/clarification/request', user.token, { session_id: sessionId, questions: QUESTIONS });
        if (asked.status !== 200) {
          fail(`ask ${asked.status}: ${asked.body.slice(0, 200)}`);
          return;
        }
        counters.asks += 1;
        pendingId = (JSON.parse(asked.body) as { pending_id: string }).pending_id;
      }
    };
    const lister = async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const listed = await send('GET', '/api/v1/clarification?limit=20', user.token);
        listLatency.push(performance.now() - t0);
        if (listed.status === 200) counters.lists += 1;
        else fail(`list ${listed.status}: ${listed.body.slice(0, 200)}`);
      }
    };
    const sampler = async () => {
      while (performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_EVERY_S * 1000, Math.max(0, deadline - performance.now()))));
        samples.push({ atS: elapsedS(), reading: await target.heap() });
        progress(`sustained: ${elapsedS().toFixed(0)} s, ${counters.answers} answers, ${counters.lists} lists, ${errorCount} errors, RSS ${(samples.at(-1)!.reading.rss / 2 ** 20).toFixed(1)} MB`);
      }
    };

    progress(`sustained: ${DURATION_S} s with ${AGENTS} agents (${RATE > 0 ? `${RATE} answers/s` : 'unpaced'}) and ${LISTERS} listers`);
    try {
      await Promise.all([...Array.from({ length: AGENTS }, (_, i) => agent(i)), ...Array.from({ length: LISTERS }, () => lister()), sampler()]);
      // The last answers' events are still on their way.
      const settle = performance.now() + 5_000;
      while (answeredAt.size > 0 && performance.now() < settle) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const pendingId of answeredAt.keys()) fail(`no ANSWERED event for ${pendingId} within 5 s of the end`);
      feedLag = feedLagBuckets((await client.request('GET', '/metrics', BENCH_ADMIN_TOKEN)).body);
    } finally {
      unsubscribe();
      await subscriber.dispose();
      client.close();
      await target.stop();
    }

    const minuteOne = samples.find((sample) => sample.atS >= 60) ?? samples[0];
    const last = samples.at(-1);
    const seconds = DURATION_S;
    report.say(`Run: ${await machineLine(server.description)}. Duration ${seconds} s${seconds < 600 ? ` (**shorter than the target's 10 min**: BENCH_SUSTAINED_S=${seconds})` : ''}; the built server in its own process (AUTH_MODE=enabled, rate limits raised), ${AGENTS} agent sessions each cycling \`GET …/wait\` (agent token) ∥ \`POST …/respond\` (a person's PAT) → \`POST /api/v1/clarification/request\` (ask again), ${RATE > 0 ? `paced to ${RATE} answers/s together (BENCH_SUSTAINED_RATE; one ASKED and one ANSWERED event each: ${RATE * 2} events/s, the workload of the before-figures produced ~110/s)` : 'each as fast as it can (BENCH_SUSTAINED_RATE=0: the machine is saturated)'}, ${LISTERS} clients listing (\`GET /api/v1/clarification?limit=20\`) back to back, one GraphQL \`questionEvents\` subscriber (graphql-ws). RSS and heap read every ${SAMPLE_EVERY_S} s after a full GC (heap probe).`);
    report.say();
    report.table(
      ['kind', 'count', 'per second'],
      [
        ['asks', counters.asks, fixed(counters.asks / seconds, 1)],
        ['answers (200)', counters.answers, fixed(counters.answers / seconds, 1)],
        ['waits woken (200)', counters.waits, fixed(counters.waits / seconds, 1)],
        ['lists', counters.lists, fixed(counters.lists / seconds, 1)],
        ['events at the subscriber', counters.events, fixed(counters.events / seconds, 1)],
        ['errors', errorCount, ''],
      ],
      ['l', 'r', 'r'],
    );
    if (counters.errors.length > 0) {
      report.say();
      report.say('First errors:');
      for (const error of counters.errors) report.say(`- \`${error}\``);
    }
    report.say();
    const lagOf = (from: number, to: number) => lags.filter((lag) => lag.atS >= from && lag.atS < to).map((lag) => lag.fromResponse);
    const worstMinuteP99 = Math.max(
      ...Array.from({ length: Math.ceil(seconds / 60) }, (_, minute) => lagOf(minute * 60, (minute + 1) * 60)).filter((values) => values.length > 0).map((values) => percentile(values, 99)),
    );
    const rssRatio = minuteOne && last ? last.reading.rss / minuteOne.reading.rss : Number.NaN;
    report.table(
      ['figure', 'value', 'target', ''],
      [
        ['RSS at 1 min → at the end (MB)', minuteOne && last ? `${(minuteOne.reading.rss / 2 ** 20).toFixed(1)} → ${(last.reading.rss / 2 ** 20).toFixed(1)} = ${fixed(rssRatio)}×` : 'n/a', '≤ 1.2×', ratioVerdict(rssRatio, 1.2)],
        ['heap at 1 min → at the end (MB)', minuteOne && last ? `${(minuteOne.reading.usedHeap / 2 ** 20).toFixed(1)} → ${(last.reading.usedHeap / 2 ** 20).toFixed(1)}` : 'n/a', '', ''],
        ['errors', String(errorCount), '0', errorCount === 0 ? 'met' : '**MISSED**'],
        ['event lag p50 / p99 ms (respond’s 200 → ANSWERED event at the subscriber), whole run', `${fixed(percentile(lags.map((lag) => lag.fromResponse), 50), 1)} / ${fixed(percentile(lags.map((lag) => lag.fromResponse), 99), 1)}`, '', ''],
        ['event lag p99 ms, worst minute', fixed(worstMinuteP99, 1), '≤ 200 ms', ratioVerdict(worstMinuteP99, 200)],
        ['event lag p99 ms from the respond being sent (upper bound incl. the answer itself)', fixed(percentile(lags.map((lag) => lag.fromSend), 99), 1), '', ''],
        ['respond p50 / p99 ms', `${fixed(percentile(answerLatency, 50), 1)} / ${fixed(percentile(answerLatency, 99), 1)}`, '', ''],
        ['list p50 / p99 ms', `${fixed(percentile(listLatency, 50), 1)} / ${fixed(percentile(listLatency, 99), 1)}`, '', ''],
      ],
      ['l', 'r', 'r', 'l'],
    );
    report.say();
    report.say(
      `Where the lag is spent: the server's own \`parley_event_feed_lag_seconds\` (from an event's transaction starting to its batch being handed to the subscriber streams — the settled horizon's wait plus the feed reader), share of all ${feedLag.at(-1)?.count ?? 0} events (ASKED and ANSWERED) by bucket: ${feedLag
        .filter((bucket) => bucket.le <= 1)
        .map((bucket) => `≤ ${bucket.le * 1000} ms ${fixed((100 * bucket.count) / (feedLag.at(-1)?.count ?? 1), 1)} %`)
        .join(', ')}. The rest of the subscriber's lag is the stream: its access check per batch, GraphQL and the WebSocket.`,
    );
    report.say();
    report.say(`RSS / heap (MB) every ${SAMPLE_EVERY_S} s: ${samples.map((sample) => `${sample.atS.toFixed(0)} s ${(sample.reading.rss / 2 ** 20).toFixed(0)}/${(sample.reading.usedHeap / 2 ** 20).toFixed(0)}`).join(', ')}.`);
  } finally {
    await server.stop();
  }
}
