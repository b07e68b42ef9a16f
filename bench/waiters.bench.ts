/**
 * Target 3 of docs/benchmarks.md, memory per blocked waiter: what N = 10,000 blocked agents cost the server — `GET /api/v1/clarification/:id/wait`
 * with each session's agent token, and separately in-session MCP `ask_user_question_kandev` calls on
 * /mcp/session, on protocol 2025-11-25 (`mcp`) and 2026-07-28 (`mcp2026`, the SDK's own stateless handler) — as (V8 heap after a full GC) delta / N and RSS delta / N of the server, which runs
 * in its own process (the built dist/apps/server/src/main.js with bench/support/heap-probe.js
 * preloaded, so client sockets are not counted). Also: heap snapshots before/after summarized by
 * constructor (where the bytes go), the wake latency of answered waiters, and /healthz and list
 * latency with N waiting vs none.
 *
 * The floors, measured the same way (same client, URL, headers, batches, probe and readings): N `GET`s
 * of the same `/wait` URL parked by a bare `node:http` server (`bare-http`: what any HTTP long poll
 * costs in Node) and by a bare Fastify app with the application's server options (`fastify`: the
 * framework's share); `/wait` minus them is the application's share.
 *
 * Targets (ratios in one run): RSS per blocked `/wait` ≤ 1.25× the bare-http floor's; heap per blocked
 * MCP ask ≤ 2× a blocked `/wait`'s, on either protocol version. Where RSS goes beyond the heap, the probe splits it: V8's heap
 * spaces (committed), V8's 256 KiB pages resident (in its spaces or pooled), the rest.
 *
 * Environment: BENCH_WAITERS (10000), BENCH_WAKES (200), BENCH_SNAPSHOTS (0; 1 = take heap snapshots, for where the bytes go — a snapshot before opening leaves the
 * RSS reading after it incomparable: V8's pooled pages then stay resident, docs/benchmarks.md "3. Waiters"),
 * BENCH_WAITER_KINDS (wait,bare-http,fastify,mcp,mcp2026), BENCH_WAITER_BATCH (250 requests opened at a time), BENCH_SNAPSHOT_DIR (keep the snapshots there, for a retainer analysis),
 * BENCH_NODE_FLAGS (extra node flags for the server and every floor alike; none by default, as in production),
 * BENCH_SETTLE_MS (230000: the idle time before each reading, see SETTLE_MS).
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
import { type ConstructorTotal, diffSnapshots, summarizeSnapshot } from './support/heap-snapshot.js';
import type { HeapReading } from './support/heap-probe.js';
import { machineLine, progress, Report, ratioVerdict } from './support/report.js';
import { agentTokenOf, seed, seededIds } from './support/seed.js';
import { BenchServerProcess, type Floor, FLOORS, NODE_FLAGS } from './support/server-process.js';

const N = envInt('BENCH_WAITERS', 10_000);
const WAKES = Math.min(envInt('BENCH_WAKES', 200), N);
const SNAPSHOTS = process.env.BENCH_SNAPSHOTS === '1';
const KINDS = (process.env.BENCH_WAITER_KINDS ?? 'wait,bare-http,fastify,mcp,mcp2026')
  .split(',')
  .filter((kind): kind is Kind => kind === 'wait' || kind === 'mcp' || kind === 'mcp2026' || Object.hasOwn(FLOORS, kind));
const BATCH = envInt('BENCH_WAITER_BATCH', 250);
const WARM = 200;
const PROBES = 40;
const ASK_QUESTIONS = [{ id: 'q1', prompt: 'Proceed?', options: [{ option_id: 'q1_yes', label: 'Yes' }, { option_id: 'q1_no', label: 'No' }] }];

/** `wait` and the MCP asks block on the application; a floor parks the same `GET /wait` with no application. */
type Kind = ServiceKind | Floor;
type ServiceKind = 'wait' | 'mcp' | 'mcp2026';
const isAsk = (kind: Kind): boolean => kind === 'mcp' || kind === 'mcp2026';

/** A 2026-07-28 request carries its protocol version, client and capabilities in `_meta`, and names its method in headers. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const isFloor = (kind: Kind): kind is Floor => Object.hasOwn(FLOORS, kind);

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
  const params = { name: 'ask_user_question_kandev', arguments: { questions: ASK_QUESTIONS }, ...(kind === 'mcp2026' ? { _meta: ENVELOPE } : {}) };
  const body = isAsk(kind) ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) : undefined;
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
  if (body) Object.assign(headers, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) });
  if (kind === 'mcp2026') Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ask_user_question_kandev' });
  const url = isAsk(kind) ? `${baseUrl}/mcp/session` : `${baseUrl}/api/v1/clarification/${seededIds(index).pendingId}/wait`;
  let request!: http.ClientRequest;
  const done = new Promise<{ status: number; at: number; body: string }>((resolve) => {
    request = http.request(url, { method: isAsk(kind) ? 'POST' : 'GET', headers, agent }, (res) => {
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

/** Heap and RSS of one kind's server around N blocked requests. */
interface HeapFigures {
  kind: Kind;
  before: HeapReading;
  after: HeapReading;
  opened: number;
  /** Heap snapshot after − before by constructor, when snapshots are on. */
  snapshot: ConstructorTotal[] | undefined;
  openSeconds: number;
  /** Full collections V8 ran of its own accord while the server idled after the opening (its memory reducer's, on an idle server). */
  collectedWhileSettling: number;
}

/** Only the application answers: how fast a waiter wakes, and what N waiters cost other requests. */
interface ServiceFigures {
  wakeFromResponse: number[];
  wakeFromSend: number[];
  wakeErrors: number;
  latency: { healthz: number[]; list: number[]; healthzLoaded: number[]; listLoaded: number[] };
}

type KindResult = HeapFigures & { service?: ServiceFigures };

/** Opens `count` blocked requests from index `from`, BATCH at a time; each batch is awaited until `presence` counts it. */
async function openBlocked(baseUrl: string, kind: Kind, agent: http.Agent, from: number, count: number, presence: () => Promise<number>): Promise<Blocked[]> {
  const opened: Blocked[] = [];
  const base = await presence();
  for (let i = from; i < from + count; i += BATCH) {
    const size = Math.min(BATCH, from + count - i);
    for (let j = i; j < i + size; j++) opened.push(block(baseUrl, kind, j, agent));
    await until(`${i + size - from} ${kind} waiters`, async () => {
      const ended = opened.filter((waiter) => waiter.settled !== undefined);
      if (ended.length > 0) throw new Error(`${ended.length} of ${opened.length} blocked requests ended early: ${JSON.stringify(ended.slice(0, 3).map((waiter) => waiter.settled))}`);
      return (await presence()) >= base + (i + size - from);
    });
  }
  return opened;
}

/** Where a kind's heap snapshots go: BENCH_SNAPSHOT_DIR/<kind> (kept), else a temporary directory. */
async function snapshotDirOf(kind: Kind): Promise<{ dir: string; discard(): Promise<void> }> {
  const kept = process.env.BENCH_SNAPSHOT_DIR;
  if (kept) {
    const dir = path.join(kept, kind);
    await mkdir(dir, { recursive: true });
    return { dir, discard: () => Promise.resolve() };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'parley-bench-heap-'));
  return { dir, discard: () => rm(dir, { recursive: true, force: true }) };
}

interface Readings {
  before: HeapReading;
  after: HeapReading;
  openSeconds: number;
  collectedWhileSettling: number;
  snapshots: { before: string; after: string } | undefined;
}

/**
 * How long the server idles before each reading. V8 keeps the pages a burst of requests grew its heap
 * by until its memory reducer runs; in V8's default mode, which judges a process that allocated much at
 * its last collection as still busy, that is its watchdog: a memory-reducing collection 100 s after
 * the last full one, and a second one about 100 s after the first (with `--memory-saver-mode`, both
 * within seconds). Only after the second are the burst's pages reliably returned; read sooner, RSS
 * counts the burst's leftovers, which depend on the machine's load, not what a parked request holds.
 * The report counts the collections V8 ran while the server idled.
 */
const SETTLE_MS = envInt('BENCH_SETTLE_MS', 230_000);
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** The part every kind shares: reading (and snapshot) before, N opened, the event loop settled, reading (and snapshot) after. */
async function readAround(server: BenchServerProcess, kind: Kind, snapshotDir: string, openAll: () => Promise<void>): Promise<Readings> {
  // A snapshot leaves malloc'd memory behind, so both readings come after one; V8's pooled pages can stay resident after it
  // all the same, which is why the RSS figures come from runs without snapshots (BENCH_SNAPSHOTS).
  const beforeSnapshot = SNAPSHOTS ? await server.snapshot(path.join(snapshotDir, 'before.heapsnapshot')) : undefined;
  await settle();
  const before = await server.heap();
  progress(`waiters/${kind}: opening ${N} blocked requests`);
  const t0 = performance.now();
  await openAll();
  const openSeconds = (performance.now() - t0) / 1000;
  const collectedBeforeSettling = await server.ownMajorCollections();
  // The event loop settles (timers armed, presence written) and V8 returns the burst's pages.
  await settle();
  const after = await server.heap();
  const collectedWhileSettling = after.ownMajorCollections - collectedBeforeSettling;
  const afterSnapshot = SNAPSHOTS ? await server.snapshot(path.join(snapshotDir, 'after.heapsnapshot')) : undefined;
  const grown = (key: 'usedHeap' | 'rss' | 'heapCommitted' | 'heapPagesResident') => ((after[key] - before[key]) / N).toFixed(0);
  progress(
    `waiters/${kind}: heap +${grown('usedHeap')} B/waiter, RSS +${grown('rss')} B/waiter (V8 spaces committed +${grown('heapCommitted')}, V8 pages resident +${grown('heapPagesResident')}; ${collectedWhileSettling} own full GCs while idle)`,
  );
  return { before, after, openSeconds, collectedWhileSettling, snapshots: beforeSnapshot && afterSnapshot ? { before: beforeSnapshot, after: afterSnapshot } : undefined };
}

async function constructorDiff(kind: Kind, readings: Readings): Promise<ConstructorTotal[] | undefined> {
  if (!readings.snapshots) return undefined;
  progress(`waiters/${kind}: summarizing heap snapshots`);
  return diffSnapshots(await summarizeSnapshot(readings.snapshots.before), await summarizeSnapshot(readings.snapshots.after));
}

async function measureKind(kind: ServiceKind, url: string, db: pg.Pool, token: string): Promise<KindResult> {
  const server = await BenchServerProcess.start(url, { WAIT_TIMEOUT_MS: '3600000', ASK_TIMEOUT_MS: '3600000' });
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const answerer = new HttpClient(server.baseUrl, 8);
  const snapshots = await snapshotDirOf(kind);
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
    const warm = await openBlocked(server.baseUrl, kind, agent, 0, WARM, presence);
    await wake(warm);
    const latency = { healthz: [] as number[], list: [] as number[], healthzLoaded: [] as number[], listLoaded: [] as number[] };
    await probe([], []);
    await probe(latency.healthz, latency.list);
    const readings = await readAround(server, kind, snapshots.dir, async () => {
      blocked.push(...(await openBlocked(server.baseUrl, kind, agent, WARM, N, presence)));
    });
    await probe(latency.healthzLoaded, latency.listLoaded);
    progress(`waiters/${kind}: waking ${WAKES}`);
    const woken = await wake(blocked.slice(0, WAKES));
    return {
      kind,
      before: readings.before,
      after: readings.after,
      opened: N,
      openSeconds: readings.openSeconds,
      collectedWhileSettling: readings.collectedWhileSettling,
      snapshot: await constructorDiff(kind, readings),
      service: { wakeFromResponse: woken.fromResponse, wakeFromSend: woken.fromSend, wakeErrors: woken.errors, latency },
    };
  } finally {
    for (const waiter of blocked) waiter.request.destroy();
    agent.destroy();
    answerer.close();
    await server.stop();
    await snapshots.discard();
  }
}

/** A floor: the same client, URL, headers and batches as `/wait`, parked by a server with no application. */
async function measureFloor(floor: Floor): Promise<KindResult> {
  const server = await BenchServerProcess.startFloor(floor);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const snapshots = await snapshotDirOf(floor);
  const blocked: Blocked[] = [];
  try {
    const presence = () => server.parked();
    progress(`waiters/${floor}: warm-up (${WARM} requests parked and released)`);
    const warm = await openBlocked(server.baseUrl, floor, agent, 0, WARM, presence);
    await server.release(WARM);
    const refused = (await Promise.all(warm.map((waiter) => waiter.done))).filter((outcome) => outcome.status !== 200);
    if (refused.length > 0) throw new Error(`${refused.length} released requests did not end with 200: ${JSON.stringify(refused.slice(0, 3))}`);
    const readings = await readAround(server, floor, snapshots.dir, async () => {
      blocked.push(...(await openBlocked(server.baseUrl, floor, agent, WARM, N, presence)));
    });
    return {
      kind: floor,
      before: readings.before,
      after: readings.after,
      opened: N,
      openSeconds: readings.openSeconds,
      collectedWhileSettling: readings.collectedWhileSettling,
      snapshot: await constructorDiff(floor, readings),
    };
  } finally {
    for (const waiter of blocked) waiter.request.destroy();
    agent.destroy();
    await server.stop();
    await snapshots.discard();
  }
}

/** Measures an application kind on its own seeded database. */
async function measureServiceKind(server: BenchServer, kind: ServiceKind): Promise<KindResult> {
  const url = await server.createDatabase(`waiters_${kind}`);
  // The schema comes from the first start of the server; the seed goes in before the measured one.
  const setup = await BenchServerProcess.start(url);
  const user = await createUserWithToken(setup.baseUrl, 'answerer');
  await setup.stop();
  const db = new pg.Pool({ connectionString: url, max: 2 });
  try {
    progress(`waiters/${kind}: seeding ${WARM + N} sessions`);
    await seed(db, { bundles: WARM + N, ownerId: user.userId, questions: 1 });
    if (isAsk(kind)) {
      // The agents ask their own bundles: sessions without one.
      await db.query(`DELETE FROM clarification_bundles`);
      await db.query(`DELETE FROM task_session_messages`);
      await db.query(`VACUUM ANALYZE task_session_messages`);
    }
    return await measureKind(kind, url, db, user.token);
  } finally {
    await db.end();
  }
}

const LABELS: Record<Kind, string> = {
  wait: 'GET /wait (agent token)',
  mcp: 'MCP ask on /mcp/session (2025-11-25)',
  mcp2026: 'MCP ask on /mcp/session (2026-07-28)',
  'bare-http': 'floor: bare `node:http`, GET parked',
  fastify: 'floor: Fastify, GET hijacked and parked',
};
const BEFORE: Record<Kind, string> = { wait: '13.5–14 KB (heap +11.75 KB)', mcp: 'not measured', mcp2026: 'not measured', 'bare-http': '—', fastify: '—' };
const TARGET = 6144;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
const perWaiter = (r: KindResult, key: 'usedHeap' | 'rss' | 'heapCommitted' | 'heapPagesResident') => (r.after[key] - r.before[key]) / r.opened;
/** The issue's targets, as ratios taken in one run. */
const RSS_OVER_BARE_TARGET = 1.25;
const MCP_OVER_WAIT_TARGET = 2;

function verdict(r: KindResult): string {
  const met = perWaiter(r, 'usedHeap') <= TARGET && perWaiter(r, 'rss') <= TARGET;
  if (isFloor(r.kind)) return met ? 'floor under the target' : '**floor over the target**';
  return met ? 'met' : '**MISSED**';
}

/** `/wait` against its floors: how much of a blocked `/wait` is Node's HTTP server, Fastify, and the application. */
function reportShares(report: Report, results: KindResult[]): void {
  const of = (kind: Kind) => results.find((r) => r.kind === kind);
  const wait = of('wait');
  const bare = of('bare-http');
  const fastify = of('fastify');
  const rows: string[][] = [];
  const difference = (what: string, minuend: KindResult, subtrahend: KindResult) =>
    rows.push([what, kb(perWaiter(minuend, 'usedHeap') - perWaiter(subtrahend, 'usedHeap')), kb(perWaiter(minuend, 'rss') - perWaiter(subtrahend, 'rss'))]);
  if (wait && bare) {
    const rssRatio = perWaiter(wait, 'rss') / perWaiter(bare, 'rss');
    rows.push([
      '`/wait` ÷ bare-http',
      `${fixed(perWaiter(wait, 'usedHeap') / perWaiter(bare, 'usedHeap'))}×`,
      `${fixed(rssRatio)}× (target ≤ ${RSS_OVER_BARE_TARGET}×: ${ratioVerdict(rssRatio, RSS_OVER_BARE_TARGET)})`,
    ]);
    difference('`/wait` − bare-http (Fastify + Nest + Parley)', wait, bare);
  }
  if (fastify && bare) difference('fastify − bare-http (Fastify: its Request/Reply, the request’s Pino child, routing)', fastify, bare);
  if (wait && fastify) difference('`/wait` − fastify (Nest + Parley: the application’s share)', wait, fastify);
  for (const [kind, what] of [['mcp', 'MCP ask (2025-11-25) ÷ `/wait`'], ['mcp2026', 'MCP ask (2026-07-28) ÷ `/wait`']] as const) {
    const ask = of(kind);
    if (!ask || !wait) continue;
    const heapRatio = perWaiter(ask, 'usedHeap') / perWaiter(wait, 'usedHeap');
    rows.push([
      what,
      `${fixed(heapRatio)}× (target ≤ ${MCP_OVER_WAIT_TARGET}×: ${ratioVerdict(heapRatio, MCP_OVER_WAIT_TARGET)})`,
      `${fixed(perWaiter(ask, 'rss') / perWaiter(wait, 'rss'))}×`,
    ]);
  }
  if (rows.length === 0) return;
  report.say();
  report.say('`/wait` against its floors, and the MCP ask against `/wait` (per blocked request; ratios and differences of the per-waiter figures above):');
  report.say();
  report.table(['', 'heap / waiter', 'RSS / waiter'], rows, ['l', 'r', 'r']);
}

/** Side by side by constructor: what `/wait` holds beyond the Fastify floor, and the floors' own. */
function reportConstructorShares(report: Report, results: KindResult[]): void {
  const wait = results.find((r) => r.kind === 'wait');
  const floors = results.filter((r) => isFloor(r.kind) && r.snapshot);
  const fastify = floors.find((r) => r.kind === 'fastify');
  if (!wait?.snapshot || !fastify?.snapshot) return;
  const columns = [...floors, wait];
  const byName = columns.map((r) => new Map((r.snapshot ?? []).map((entry) => [entry.name, entry])));
  const waitAt = byName.length - 1;
  const fastifyAt = columns.indexOf(fastify);
  const names = [...new Set(byName.flatMap((totals) => [...totals.keys()]))];
  const bytes = (column: number, name: string) => (byName[column].get(name)?.bytes ?? 0) / columns[column].opened;
  const count = (column: number, name: string) => (byName[column].get(name)?.count ?? 0) / columns[column].opened;
  const top = names.map((name) => ({ name, extra: bytes(waitAt, name) - bytes(fastifyAt, name) })).sort((a, b) => b.extra - a.extra).slice(0, 25);
  report.say();
  report.say('What `/wait` holds beyond the Fastify floor, by constructor (bytes per waiter, self size; top 25 by `/wait` − fastify):');
  report.say();
  report.table(
    ['constructor / node type', ...columns.map((r) => `${r.kind === 'wait' ? '`/wait`' : r.kind} B`), '`/wait` − fastify B', '`/wait` − fastify objects'],
    top.map(({ name, extra }) => [
      `\`${name}\``,
      ...columns.map((_, column) => fixed(bytes(column, name), 0)),
      fixed(extra, 0),
      fixed(count(waitAt, name) - count(fastifyAt, name)),
    ]),
    ['l', ...columns.map((): 'r' => 'r'), 'r', 'r'],
  );
}

export async function run(report: Report): Promise<void> {
  const server: BenchServer = await startBenchServer();
  const results: KindResult[] = [];
  const failures: string[] = [];
  try {
    for (const kind of KINDS) {
      try {
        results.push(isFloor(kind) ? await measureFloor(kind) : await measureServiceKind(server, kind));
      } catch (error) {
        // One kind failing (e.g. a burst refused) must not lose the figures of the other.
        failures.push(`${kind}: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`);
        progress(`waiters/${kind} failed: ${String(error)}`);
      }
    }
    report.say(`Run: ${await machineLine(server.description)}. N = ${N} blocked agents per kind (each its own session, bundle and agent token \`parley_sat_…\`), opened ${BATCH} at a time; the server is the built \`dist/apps/server/src/main.js\` in its own process (AUTH_MODE=enabled, LOG_LEVEL=warn, WAIT_TIMEOUT_MS and ASK_TIMEOUT_MS 1 h, rate limits raised) with \`bench/support/heap-probe.js\` preloaded (\`--expose-gc --import\`): each reading after the server idled ${(SETTLE_MS / 1000).toFixed(0)} s (BENCH_SETTLE_MS: time for V8's memory reducer to run its two collections and return the pages of the opening burst; the table counts the full collections V8 ran of its own accord while the server idled after the opening), heap = \`v8.getHeapStatistics().used_heap_size\` after two \`global.gc()\`, RSS = \`process.memoryUsage().rss\`, read over IPC; beside RSS, V8's committed heap (\`total_physical_size\`) and the resident bytes of V8's 256 KiB page mappings (/proc/self/smaps: pages of its spaces, and freed pages it keeps pooled). Node flags beyond those: ${NODE_FLAGS.length > 0 ? NODE_FLAGS.map((flag) => `\`${flag}\``).join(' ') + ' (BENCH_NODE_FLAGS, server and floors alike)' : 'none (as `npm start` and the Dockerfile run it)'}. Baseline after ${WARM} waiters were opened and answered (warm code paths).`);
    if (results.some((r) => isFloor(r.kind))) {
      report.say();
      report.say(`The floors run the same way (own process, same flags and probe, same client, keep-alive off, the same \`GET /api/v1/clarification/<id>/wait\` URLs and \`authorization: Bearer parley_sat_…\` headers, same batches, ${WARM} parked and released before the first reading): \`bench/support/bare-http.floor.ts\` is a \`node:http\` server with the application's timeouts whose handler keeps each response in a \`Set\`; \`bench/support/fastify.floor.ts\` is Fastify with the application's server options (its \`fastifyLogging\`: root Pino logger at \`warn\`, \`x-request-id\`, a child logger per request; body limit; timeouts) and one route on the \`/wait\` path that hijacks the reply and keeps \`reply.raw\` in a \`Set\` — no Nest, no plugins, no hooks.`);
    }
    report.say();
    for (const failure of failures) report.say(`**Run failed for ${failure}**`);
    if (failures.length > 0) report.say();
    report.table(
      [
        'blocked agent',
        'heap before → after (MB)',
        'heap / waiter',
        'RSS before → after (MB)',
        'RSS / waiter',
        'of RSS: V8 spaces committed / V8 pages resident / waiter',
        'V8’s own full GCs while idle',
        'before',
        'target',
        '',
      ],
      results.map((r) => [
        LABELS[r.kind],
        `${(r.before.usedHeap / 2 ** 20).toFixed(1)} → ${(r.after.usedHeap / 2 ** 20).toFixed(1)}`,
        kb(perWaiter(r, 'usedHeap')),
        `${(r.before.rss / 2 ** 20).toFixed(1)} → ${(r.after.rss / 2 ** 20).toFixed(1)}`,
        kb(perWaiter(r, 'rss')),
        `${kb(perWaiter(r, 'heapCommitted'))} / ${kb(perWaiter(r, 'heapPagesResident'))}`,
        String(r.collectedWhileSettling),
        BEFORE[r.kind],
        '≤ 6 KB each',
        verdict(r),
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    );
    reportShares(report, results);
    const served = results.flatMap((r) => (r.service ? [{ r, service: r.service }] : []));
    if (served.length > 0) {
      report.say();
      report.table(
        ['blocked agent', 'wake p50 / p99 ms (respond’s response → waiter’s response)', 'p50 / p99 ms (respond sent → waiter’s response)', 'wake errors', 'target p99', ''],
        served.map(({ r, service }) => [
          LABELS[r.kind],
          `${fixed(percentile(service.wakeFromResponse, 50), 1)} / ${fixed(percentile(service.wakeFromResponse, 99), 1)}`,
          `${fixed(percentile(service.wakeFromSend, 50), 1)} / ${fixed(percentile(service.wakeFromSend, 99), 1)}`,
          `${service.wakeErrors} of ${service.wakeFromSend.length}`,
          '≤ 50 ms',
          ratioVerdict(percentile(service.wakeFromResponse, 99), 50),
        ]),
        ['l', 'r', 'r', 'r', 'r', 'l'],
      );
      report.say();
      report.table(
        ['blocked agent', 'GET /healthz p50 / p99 ms: none → N waiting', 'ratio p50', 'REST list (limit 20) p50 / p99 ms: none → N waiting', 'ratio p50', 'opening N took'],
        served.map(({ r, service: { latency } }) => [
          LABELS[r.kind],
          `${fixed(percentile(latency.healthz, 50))} / ${fixed(percentile(latency.healthz, 99))} → ${fixed(percentile(latency.healthzLoaded, 50))} / ${fixed(percentile(latency.healthzLoaded, 99))}`,
          `${fixed(percentile(latency.healthzLoaded, 50) / percentile(latency.healthz, 50))}×`,
          `${fixed(percentile(latency.list, 50))} / ${fixed(percentile(latency.list, 99))} → ${fixed(percentile(latency.listLoaded, 50))} / ${fixed(percentile(latency.listLoaded, 99))}`,
          `${fixed(percentile(latency.listLoaded, 50) / percentile(latency.list, 50))}×`,
          `${r.openSeconds.toFixed(1)} s`,
        ]),
        ['l', 'r', 'r', 'r', 'r', 'r'],
      );
    }
    for (const r of results) {
      if (!r.snapshot) continue;
      const total = r.snapshot.reduce((sum, item) => sum + Math.max(0, item.bytes), 0);
      report.say();
      report.say(`Where the bytes go — ${LABELS[r.kind]}: heap snapshot after − before, by constructor (self size; top 25 by growth):`);
      report.say();
      report.table(
        ['constructor / node type', 'objects per waiter', 'bytes per waiter', 'share of growth'],
        r.snapshot.slice(0, 25).map((entry) => [`\`${entry.name}\``, fixed(entry.count / r.opened), fixed(entry.bytes / r.opened, 0), `${((entry.bytes / total) * 100).toFixed(1)} %`]),
        ['l', 'r', 'r', 'r'],
      );
    }
    reportConstructorShares(report, results);
  } finally {
    await server.stop();
  }
}
