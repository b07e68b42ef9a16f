/**
 * Issue 11 target 3: what N = 10,000 blocked agents cost the server — `GET /api/v1/clarification/:id/wait`
 * with each session's agent token, and separately in-session MCP `ask_user_question_kandev` calls on
 * /mcp/session — as (V8 heap after a full GC) delta / N and RSS delta / N of the server, which runs
 * in its own process (the built dist/apps/server/src/main.js with bench/support/heap-probe.js
 * preloaded, so client sockets are not counted). Also: heap snapshots before/after summarized by
 * constructor (where the bytes go), the wake latency of answered waiters, and /healthz and list
 * latency with N waiting vs none.
 *
 * Environment: BENCH_WAITERS (10000), BENCH_WAKES (200), BENCH_SNAPSHOTS (1 = take heap snapshots),
 * BENCH_WAITER_KINDS (wait,mcp), BENCH_WAITER_BATCH (250 requests opened at a time), BENCH_SNAPSHOT_DIR (keep the snapshots there, for a retainer analysis).
 */
import http from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ANSWERS, HttpClient } from './support/answer-clients.js';
import { createUserWithToken } from './support/app.js';
import { type BenchServer, startBenchServer } from './support/database.js';
import { envInt, fixed, percentile } from './support/env.js';
import { diffSnapshots, summarizeSnapshot } from './support/heap-snapshot.js';
import type { HeapReading } from './support/heap-probe.js';
import { machineLine, progress, Report, ratioVerdict } from './support/report.js';
import { agentTokenOf, seed, seededIds } from './support/seed.js';
import { BenchServerProcess } from './support/server-process.js';

const N = envInt('BENCH_WAITERS', 10_000);
const WAKES = Math.min(envInt('BENCH_WAKES', 200), N);
const SNAPSHOTS = process.env.BENCH_SNAPSHOTS !== '0';
const KINDS = (process.env.BENCH_WAITER_KINDS ?? 'wait,mcp').split(',').filter((kind): kind is Kind => kind === 'wait' || kind === 'mcp');
const BATCH = envInt('BENCH_WAITER_BATCH', 250);
const WARM = 200;
const PROBES = 40;
const ASK_QUESTIONS = [{ id: 'q1', prompt: 'Proceed?', options: [{ option_id: 'q1_yes', label: 'Yes' }, { option_id: 'q1_no', label: 'No' }] }];

type Kind = 'wait' | 'mcp';

/** One blocked HTTP request of an agent; `done` settles with the response's status and arrival time. */
interface Blocked {
  index: number;
  request: http.ClientRequest;
  done: Promise<{ status: number; at: number; body: string }>;
  /** Set once the response arrived. */
  settled?: { status: number; body: string };
}

function block(baseUrl: string, kind: Kind, index: number, agent: http.Agent): Blocked {
  const token = agentTokenOf(index);
  const body =
    kind === 'mcp'
      ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask_user_question_kandev', arguments: { questions: ASK_QUESTIONS } } })
      : undefined;
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
  if (body) Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) });
  const url = kind === 'mcp' ? `${baseUrl}/mcp/session` : `${baseUrl}/api/v1/clarification/${seededIds(index).pendingId}/wait`;
  let request!: http.ClientRequest;
  const done = new Promise<{ status: number; at: number; body: string }>((resolve) => {
    request = http.request(url, { method: kind === 'mcp' ? 'POST' : 'GET', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, at: performance.now(), body: text }));
      res.on('error', () => resolve({ status: -1, at: performance.now(), body: '' }));
    });
    request.on('error', () => resolve({ status: -1, at: performance.now(), body: '' }));
    request.end(body);
  });
  const blocked: Blocked = { index, request, done };
  void done.then(({ status, body: text }) => (blocked.settled = { status, body: text.slice(0, 200) }));
  return blocked;
}

async function until(what: string, check: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface KindResult {
  kind: Kind;
  before: HeapReading;
  after: HeapReading;
  opened: number;
  wakeFromResponse: number[];
  wakeFromSend: number[];
  wakeErrors: number;
  latency: { healthz: number[]; list: number[]; healthzLoaded: number[]; listLoaded: number[] };
  snapshot: ReturnType<typeof diffSnapshots> | undefined;
  openSeconds: number;
}

async function measureKind(kind: Kind, url: string, db: pg.Pool, token: string): Promise<KindResult> {
  const server = await BenchServerProcess.start(url, { WAIT_TIMEOUT_MS: '3600000', ASK_TIMEOUT_MS: '3600000' });
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const answerer = new HttpClient(server.baseUrl, 8);
  const keptSnapshots = process.env.BENCH_SNAPSHOT_DIR;
  const snapshotDir = keptSnapshots ? path.join(keptSnapshots, kind) : await mkdtemp(path.join(tmpdir(), 'parley-bench-heap-'));
  if (keptSnapshots) await mkdir(snapshotDir, { recursive: true });
  const blocked: Blocked[] = [];
  try {
    const presence = async () => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM clarification_waiters`)).rows[0]?.n);
    const pendingIdsOf = async (indexes: number[]): Promise<Map<number, string>> => {
      if (kind === 'wait') return new Map(indexes.map((i) => [i, seededIds(i).pendingId]));
      const rows = await db.query<{ session_id: string; pending_id: string }>(
        `SELECT task_session_id AS session_id, metadata->>'pending_id' AS pending_id FROM task_session_messages
          WHERE type = 'clarification_request' AND metadata->>'status' = 'pending' AND task_session_id = ANY($1::text[])`,
        [indexes.map((i) => seededIds(i).sessionId)],
      );
      const bySession = new Map(rows.rows.map((row) => [row.session_id, row.pending_id]));
      return new Map(indexes.map((i) => [i, bySession.get(seededIds(i).sessionId) as string]));
    };
    const open = async (from: number, count: number): Promise<Blocked[]> => {
      const opened: Blocked[] = [];
      const base = await presence();
      for (let i = from; i < from + count; i += BATCH) {
        const size = Math.min(BATCH, from + count - i);
        for (let j = i; j < i + size; j++) opened.push(block(server.baseUrl, kind, j, agent));
        await until(`${i + size - from} ${kind} waiters`, async () => {
          const ended = opened.filter((waiter) => waiter.settled !== undefined);
          if (ended.length > 0) throw new Error(`${ended.length} of ${opened.length} blocked requests ended early: ${JSON.stringify(ended.slice(0, 3).map((waiter) => waiter.settled))}`);
          return (await presence()) >= base + (i + size - from);
        });
      }
      return opened;
    };
    /** Answers the given waiters over REST (8 at a time); each wake is measured from the respond. */
    const wake = async (targets: Blocked[]) => {
      const ids = await pendingIdsOf(targets.map((target) => target.index));
      const fromResponse: number[] = [];
      const fromSend: number[] = [];
      let errors = 0;
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < targets.length) {
            const target = targets[next++];
            const sent = performance.now();
            const res = await answerer.request('POST', `/api/v1/clarification/${ids.get(target.index)}/respond`, token, { answers: ANSWERS });
            const responded = performance.now();
            const woke = await target.done;
            if (res.status !== 200 || woke.status !== 200) errors += 1;
            fromResponse.push(woke.at - responded);
            fromSend.push(woke.at - sent);
          }
        }),
      );
      return { fromResponse, fromSend, errors };
    };
    const probe = async (healthz: number[], list: number[]) => {
      for (let i = 0; i < PROBES; i++) {
        let t0 = performance.now();
        await answerer.request('GET', '/healthz', undefined);
        healthz.push(performance.now() - t0);
        t0 = performance.now();
        const res = await answerer.request('GET', '/api/v1/clarification?limit=20', token);
        if (res.status !== 200) throw new Error(`list answered ${res.status}`);
        list.push(performance.now() - t0);
      }
    };

    progress(`waiters/${kind}: warm-up (${WARM} waiters opened and answered)`);
    const warm = await open(0, WARM);
    await wake(warm);
    const latency = { healthz: [] as number[], list: [] as number[], healthzLoaded: [] as number[], listLoaded: [] as number[] };
    await probe([], []);
    await probe(latency.healthz, latency.list);
    // A snapshot leaves malloc'd memory behind: both readings come after one snapshot, so RSS compares alike.
    const beforeSnapshot = SNAPSHOTS ? await server.snapshot(path.join(snapshotDir, 'before.heapsnapshot')) : undefined;
    const before = await server.heap();

    progress(`waiters/${kind}: opening ${N} blocked requests`);
    const t0 = performance.now();
    blocked.push(...(await open(WARM, N)));
    const openSeconds = (performance.now() - t0) / 1000;
    // Let the event loop settle (timers armed, presence written) before reading the heap.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await server.heap();
    const afterSnapshot = SNAPSHOTS ? await server.snapshot(path.join(snapshotDir, 'after.heapsnapshot')) : undefined;
    progress(`waiters/${kind}: heap +${((after.usedHeap - before.usedHeap) / N).toFixed(0)} B/waiter, RSS +${((after.rss - before.rss) / N).toFixed(0)} B/waiter`);
    await probe(latency.healthzLoaded, latency.listLoaded);
    progress(`waiters/${kind}: waking ${WAKES}`);
    const woken = await wake(blocked.slice(0, WAKES));
    let snapshot: KindResult['snapshot'];
    if (beforeSnapshot && afterSnapshot) {
      progress(`waiters/${kind}: summarizing heap snapshots`);
      snapshot = diffSnapshots(await summarizeSnapshot(beforeSnapshot), await summarizeSnapshot(afterSnapshot));
    }
    return {
      kind,
      before,
      after,
      opened: N,
      wakeFromResponse: woken.fromResponse,
      wakeFromSend: woken.fromSend,
      wakeErrors: woken.errors,
      latency,
      snapshot,
      openSeconds,
    };
  } finally {
    for (const waiter of blocked) waiter.request.destroy();
    agent.destroy();
    answerer.close();
    await server.stop();
    if (!keptSnapshots) await rm(snapshotDir, { recursive: true, force: true });
  }
}

export async function run(report: Report): Promise<void> {
  const server: BenchServer = await startBenchServer();
  const results: KindResult[] = [];
  const failures: string[] = [];
  try {
    for (const kind of KINDS) {
      const url = await server.createDatabase(`waiters_${kind}`);
      // The schema comes from the first start of the server; the seed goes in before the measured one.
      const setup = await BenchServerProcess.start(url);
      const user = await createUserWithToken(setup.baseUrl, 'answerer');
      await setup.stop();
      const db = new pg.Pool({ connectionString: url, max: 2 });
      try {
        progress(`waiters/${kind}: seeding ${WARM + N} sessions`);
        await seed(db, { bundles: WARM + N, ownerId: user.userId, questions: 1 });
        if (kind === 'mcp') {
          // The agents ask their own bundles: sessions without one.
          await db.query(`DELETE FROM clarification_bundles`);
          await db.query(`DELETE FROM task_session_messages`);
          await db.query(`VACUUM ANALYZE task_session_messages`);
        }
        results.push(await measureKind(kind, url, db, user.token));
      } catch (error) {
        // One kind failing (e.g. a burst refused) must not lose the figures of the other.
        failures.push(`${kind}: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`);
        progress(`waiters/${kind} failed: ${String(error)}`);
      } finally {
        await db.end();
      }
    }
    report.say(`Run: ${await machineLine(server.description)}. N = ${N} blocked agents per kind (each its own session, bundle and agent token \`parley_sat_…\`), opened ${BATCH} at a time; the server is the built \`dist/apps/server/src/main.js\` in its own process (AUTH_MODE=enabled, LOG_LEVEL=warn, WAIT_TIMEOUT_MS and ASK_TIMEOUT_MS 1 h, rate limits raised) with \`bench/support/heap-probe.js\` preloaded (\`--expose-gc --import\`): heap = \`v8.getHeapStatistics().used_heap_size\` after two \`global.gc()\`, RSS = \`process.memoryUsage().rss\`, read over IPC. Baseline after ${WARM} waiters were opened and answered (warm code paths).`);
    report.say();
    for (const failure of failures) report.say(`**Run failed for ${failure}**`);
    if (failures.length > 0) report.say();
    const perWaiter = (r: KindResult, key: 'usedHeap' | 'rss') => (r.after[key] - r.before[key]) / r.opened;
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
    const label = (r: KindResult) => (r.kind === 'wait' ? 'GET /wait (agent token)' : 'MCP ask on /mcp/session');
    report.table(
      ['blocked agent', 'heap before → after (MB)', 'heap / waiter', 'RSS before → after (MB)', 'RSS / waiter', 'before (issue 11)', 'target', ''],
      results.map((r) => [
        label(r),
        `${(r.before.usedHeap / 2 ** 20).toFixed(1)} → ${(r.after.usedHeap / 2 ** 20).toFixed(1)}`,
        kb(perWaiter(r, 'usedHeap')),
        `${(r.before.rss / 2 ** 20).toFixed(1)} → ${(r.after.rss / 2 ** 20).toFixed(1)}`,
        kb(perWaiter(r, 'rss')),
        r.kind === 'wait' ? '13.5–14 KB (heap +11.75 KB)' : 'not measured',
        '≤ 6 KB each',
        perWaiter(r, 'usedHeap') <= 6144 && perWaiter(r, 'rss') <= 6144 ? 'met' : '**MISSED**',
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    );
    report.say();
    report.table(
      ['blocked agent', 'wake p50 / p99 ms (respond’s response → waiter’s response)', 'p50 / p99 ms (respond sent → waiter’s response)', 'wake errors', 'target p99', ''],
      results.map((r) => [
        label(r),
        `${fixed(percentile(r.wakeFromResponse, 50), 1)} / ${fixed(percentile(r.wakeFromResponse, 99), 1)}`,
        `${fixed(percentile(r.wakeFromSend, 50), 1)} / ${fixed(percentile(r.wakeFromSend, 99), 1)}`,
        `${r.wakeErrors} of ${r.wakeFromSend.length}`,
        '≤ 50 ms',
        ratioVerdict(percentile(r.wakeFromResponse, 99), 50),
      ]),
      ['l', 'r', 'r', 'r', 'r', 'l'],
    );
    report.say();
    report.table(
      ['blocked agent', 'GET /healthz p50 / p99 ms: none → N waiting', 'ratio p50', 'REST list (limit 20) p50 / p99 ms: none → N waiting', 'ratio p50', 'opening N took'],
      results.map((r) => [
        label(r),
        `${fixed(percentile(r.latency.healthz, 50))} / ${fixed(percentile(r.latency.healthz, 99))} → ${fixed(percentile(r.latency.healthzLoaded, 50))} / ${fixed(percentile(r.latency.healthzLoaded, 99))}`,
        `${fixed(percentile(r.latency.healthzLoaded, 50) / percentile(r.latency.healthz, 50))}×`,
        `${fixed(percentile(r.latency.list, 50))} / ${fixed(percentile(r.latency.list, 99))} → ${fixed(percentile(r.latency.listLoaded, 50))} / ${fixed(percentile(r.latency.listLoaded, 99))}`,
        `${fixed(percentile(r.latency.listLoaded, 50) / percentile(r.latency.list, 50))}×`,
        `${r.openSeconds.toFixed(1)} s`,
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r'],
    );
    for (const r of results) {
      if (!r.snapshot) continue;
      report.say();
      report.say(`Where the bytes go — ${label(r)}: heap snapshot after − before, by constructor (self size; top 25 by growth):`);
      report.say();
      report.table(
        ['constructor / node type', 'objects per waiter', 'bytes per waiter', 'share of growth'],
        r.snapshot.slice(0, 25).map((entry) => {
          const total = r.snapshot!.reduce((sum, item) => sum + Math.max(0, item.bytes), 0);
          return [`\`${entry.name}\``, fixed(entry.count / r.opened), fixed(entry.bytes / r.opened, 0), `${((entry.bytes / total) * 100).toFixed(1)} %`];
        }),
        ['l', 'r', 'r', 'r'],
      );
    }
  } finally {
    await server.stop();
  }
}
