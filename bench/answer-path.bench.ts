/**
 * Target 1 of docs/benchmarks.md, the answer path: REST answers/s with 16 concurrent clients on distinct bundles vs the raw claim
 * transaction — the statements the app sent for one captured winning answer, replayed with each
 * bundle's ids — driven straight at PostgreSQL with 16 connections; GraphQL and MCP the same way.
 * REST twice: with the rate limits counted in PostgreSQL (the default, shared by replicas) and, on a
 * second app on the same database, in memory (RATE_LIMIT_STORE=memory) — the shared limiter's cost.
 * The claim transaction is driven twice: through `pg` from a worker thread of this process, and by
 * `pgbench -c 16` (prepared statements, in its own process: the faster baseline; skipped, and said so,
 * when no pgbench binary is found — BENCH_PGBENCH names one).
 *
 * With BENCH_BEFORE_MAIN (another checkout's built `dist/apps/server/src/main.js`) or
 * BENCH_BEFORE_NODE_FLAGS (node flags, e.g. `--no-memory-saver-mode`, for the build "before" alone),
 * REST answers on that build and on this one, each spawned the same way on its own database with the
 * rate limits in memory, join the rotation: what a change to the answer path costs, measured in one run.
 *
 * With Debian's pgbouncer installed, REST on this build behind it (transaction pooling, every
 * statement unnamed, LISTEN on the direct connection) joins the rotation beside the same build spawned
 * directly on PostgreSQL: what the pooler costs the answer path.
 *
 * Environment: BENCH_ROUNDS (3), BENCH_ANSWERS (answers per scenario per round, 600), BENCH_CLIENTS (16), BENCH_BEFORE_MAIN, BENCH_BEFORE_NODE_FLAGS.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import pg from 'pg';
import type { Surface } from './support/answer-clients.js';
import { ANSWERS } from './support/answer-clients.js';
import { type BenchApp, createUserWithToken, startBenchApp } from './support/app.js';
import { captureWithParameters, claimTransaction, substitute } from './support/capture.js';
import { CLAIM_STATEMENT } from './support/claim-statement.js';
import type { Statement } from './support/captured-sql.js';
import { type BenchServer, startBenchServer } from './support/database.js';
import { BenchServerProcess } from './support/server-process.js';
import { PGBOUNCER, type PgBouncer, startPgBouncer } from '../test/support/pgbouncer.js';
import { envInt, fixed, median } from './support/env.js';
import { Load } from './support/load.js';
import { PGBENCH_SEQUENCE, pgbenchBinary, pgbenchClaimScript, runPgbench } from './support/pgbench.js';
import { machineLine, progress, Report, ratioVerdict } from './support/report.js';
import { seed, seededIds } from './support/seed.js';

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const PER_SLICE = envInt('BENCH_ANSWERS', 600);
const CLIENTS = envInt('BENCH_CLIENTS', 16);
const WARMUP = 100;

/**
 * `raw`: the claim transaction replayed as the app sends it (named statements named); `raw-unnamed`: the same, every statement unnamed (planned per call);
 * `pgbench`: the same transaction driven by pgbench.
 */
type Scenario = 'raw' | 'raw-unnamed' | 'pgbench' | Surface | 'rest-memory-limits' | Spawned;
/**
 * REST on a spawned server: this build; the build BENCH_BEFORE_MAIN names (this one by default) with
 * BENCH_BEFORE_NODE_FLAGS; this build behind PgBouncer.
 */
type Spawned = 'spawned-now' | 'spawned-before' | 'spawned-pgbouncer';
const isSpawned = (scenario: Scenario): scenario is Spawned => scenario === 'spawned-now' || scenario === 'spawned-before' || scenario === 'spawned-pgbouncer';
const WITH_PGBOUNCER = existsSync(PGBOUNCER);
const PGBENCH = pgbenchBinary();
const BEFORE_MAIN = process.env.BENCH_BEFORE_MAIN?.trim() || undefined;
const BEFORE_NODE_FLAGS = (process.env.BENCH_BEFORE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const COMPARES_BEFORE = BEFORE_MAIN !== undefined || BEFORE_NODE_FLAGS.length > 0;
const BEFORE_LABEL = [BEFORE_MAIN ? `\`${BEFORE_MAIN}\`` : 'this build', ...BEFORE_NODE_FLAGS.map((flag) => `\`node ${flag}\``)].join(', ');
const SCENARIOS: Scenario[] = [
  'raw',
  'raw-unnamed',
  ...(PGBENCH ? (['pgbench'] as const) : []),
  'rest',
  'rest-memory-limits',
  'graphql',
  'mcp',
  'mcp-http',
  ...(COMPARES_BEFORE || WITH_PGBOUNCER ? (['spawned-now'] as const) : []),
  ...(COMPARES_BEFORE ? (['spawned-before'] as const) : []),
  ...(WITH_PGBOUNCER ? (['spawned-pgbouncer'] as const) : []),
];
const LABEL: Record<string, string> = {
  pgbench: 'raw claim transaction, `pgbench -c 16 -j 2 -M prepared`',
  'spawned-now': 'REST, this build in its own process (limits in memory)',
  'spawned-before': `REST, the build before (${BEFORE_LABEL}) in its own process (limits in memory)`,
  'spawned-pgbouncer': 'REST, this build in its own process behind PgBouncer 1.18 (transaction pooling, statements unnamed, limits in memory)',
  raw: 'raw claim transaction, as the app sends it (pg, 16 connections)',
  'raw-unnamed': 'raw claim transaction, every statement unnamed',
  rest: 'REST (rate limits in PostgreSQL, the default)',
  'rest-memory-limits': 'REST, rate limits in memory (RATE_LIMIT_STORE=memory)',
  mcp: 'MCP (the SDK client)',
  'mcp-http': 'MCP, plain HTTP client (the same JSON-RPC POST)',
};

interface Captured {
  all: Statement[];
  claim: Statement[];
  /** The per-bundle ids in the claim's parameters, to substitute. */
  ids: Map<string, string>;
  /** The ids the claim generated (successor turn, queued prompt): fresh per replay. */
  generated: string[];
}

async function capture(bench: BenchApp, db: pg.Pool, token: string): Promise<Captured> {
  const target = seededIds(0);
  const { result, statements } = await captureWithParameters(bench, async () =>
    fetch(`${bench.baseUrl}/api/v1/clarification/${target.pendingId}/respond`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ answers: ANSWERS }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as { claimed: boolean } })),
  );
  if (result.status !== 200 || !result.body.claimed) throw new Error(`the captured answer did not win: ${JSON.stringify(result)}`);
  const successor = await db.query<{ id: string }>(`SELECT id FROM task_session_turns WHERE metadata->>'resume_of' = $1`, [target.pendingId]);
  const prompt = await db.query<{ id: string }>(`SELECT id FROM task_session_messages WHERE turn_id = ANY($1::text[]) AND type = 'resume_prompt'`, [
    successor.rows.map((row) => row.id),
  ]);
  return {
    all: statements,
    claim: claimTransaction(statements),
    ids: new Map([
      [target.pendingId, 'pendingId'],
      [target.sessionId, 'sessionId'],
      [target.taskId, 'taskId'],
      [target.turnId, 'turnId'],
    ]),
    generated: [...successor.rows.map((row) => row.id), ...prompt.rows.map((row) => row.id)],
  };
}

/** The captured claim transaction for seeded bundle i: its ids in, fresh generated ids. */
function replayFor(captured: Captured, i: number, named = true): Statement[] {
  const ids = seededIds(i) as unknown as Record<string, string>;
  const map = new Map<string, string>();
  for (const [from, key] of captured.ids) map.set(from, ids[key]);
  for (const generated of captured.generated) map.set(generated, randomUUID());
  return captured.claim.map((statement) => {
    const replayed = substitute(statement, map);
    return named ? replayed : { sql: replayed.sql, parameters: replayed.parameters };
  });
}

/**
 * Planning of the claim statement when prepared, as `runNamed` sends it: the 1st, 6th and 7th
 * execution of one prepared statement on fresh bundles (custom plans, then the generic plan).
 */
async function preparedClaimPlanning(db: pg.Pool, statementsFor: (k: number) => Statement[]): Promise<{ index: number; planning: number; execution: number; mode: string }[]> {
  const client = await db.connect();
  const runs: { index: number; planning: number; execution: number; mode: string }[] = [];
  try {
    const mode = (await client.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]?.plan_cache_mode ?? '?';
    await client.query('BEGIN');
    const claimOf = (k: number) => statementsFor(k).find((statement) => CLAIM_STATEMENT.test(statement.sql));
    const first = claimOf(0);
    if (!first) throw new Error('no claim statement among the captured ones');
    await client.query(`PREPARE bench_claim AS ${first.sql}`);
    const literal = (value: unknown) => (value === null || value === undefined ? 'NULL' : client.escapeLiteral(typeof value === 'string' ? value : JSON.stringify(value)));
    for (let k = 0; k < 7; k++) {
      const statement = claimOf(k);
      if (!statement) throw new Error('no claim statement among the captured ones');
      const explained = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE) EXECUTE bench_claim(${statement.parameters.map(literal).join(', ')})`);
      const text = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
      const time = (label: string) => Number(new RegExp(`${label} Time: ([\\d.]+) ms`).exec(text)?.[1] ?? Number.NaN);
      if (k === 0 || k >= 5) runs.push({ index: k + 1, planning: time('Planning'), execution: time('Execution'), mode });
    }
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
  return runs;
}

export async function run(report: Report): Promise<void> {
  const server: BenchServer = await startBenchServer();
  let bench: BenchApp | undefined;
  let memoryBench: BenchApp | undefined;
  let load: Load | undefined;
  let memoryLoad: Load | undefined;
  let db: pg.Pool | undefined;
  const spawned = new Map<Spawned, { server: BenchServerProcess; load: Load }>();
  let bouncer: PgBouncer | undefined;
  try {
    const url = await server.createDatabase('answers');
    bench = await startBenchApp(url);
    memoryBench = await startBenchApp(url, { rateLimitStore: 'memory' });
    const user = await createUserWithToken(bench.baseUrl, 'answerer');
    db = new pg.Pool({ connectionString: url, max: 2 });
    // pgbench runs whole transactions per client: its slices are rounded up to a multiple of the clients.
    const total = 1 + SCENARIOS.length * (WARMUP + ROUNDS * PER_SLICE) + (1 + ROUNDS) * CLIENTS + 10;
    progress(`answer-path: seeding ${total} one-question bundles, one session each`);
    await seed(db, { bundles: total, ownerId: user.userId, questions: 1 });
    const captured = await capture(bench, db, user.token);
    progress(`answer-path: captured ${captured.all.length} statements for one winning REST answer; the claim transaction is ${captured.claim.length}`);

    for (const scenario of SCENARIOS.filter(isSpawned)) {
      progress(`answer-path: starting ${scenario} and seeding its ${total} bundles`);
      const spawnedUrl = await server.createDatabase(scenario.replace('-', '_'));
      const env: Record<string, string> = { RATE_LIMIT_STORE: 'memory' };
      if (scenario === 'spawned-pgbouncer') {
        bouncer = await startPgBouncer(spawnedUrl);
        Object.assign(env, { DATABASE_URL: bouncer.url, DATABASE_LISTEN_URL: spawnedUrl, DATABASE_PREPARED_STATEMENTS: 'false' });
      }
      const before = scenario === 'spawned-before';
      const child = await BenchServerProcess.start(spawnedUrl, env, before ? BEFORE_MAIN : undefined, before ? BEFORE_NODE_FLAGS : []);
      const answerer = await createUserWithToken(child.baseUrl, 'answerer');
      const pool = new pg.Pool({ connectionString: spawnedUrl, max: 2 });
      try {
        await seed(pool, { bundles: total, ownerId: answerer.userId, questions: 1 });
      } finally {
        await pool.end();
      }
      spawned.set(scenario, { server: child, load: await Load.start({ baseUrl: child.baseUrl, bearer: answerer.token, databaseUrl: spawnedUrl, concurrency: CLIENTS }) });
    }
    const pgbenchScript = pgbenchClaimScript(captured.claim, captured.ids as Map<string, 'pendingId' | 'sessionId' | 'taskId' | 'turnId'>, captured.generated);
    await db.query(`CREATE SEQUENCE ${PGBENCH_SEQUENCE}`);
    load = await Load.start({ baseUrl: bench.baseUrl, bearer: user.token, databaseUrl: url, concurrency: CLIENTS });
    memoryLoad = await Load.start({ baseUrl: memoryBench.baseUrl, bearer: user.token, databaseUrl: url, concurrency: CLIENTS });
    let nextBundle = 1;
    const take = (n: number): number[] => Array.from({ length: n }, () => nextBundle++);
    const errors: string[] = [];
    const rawBundles: number[] = [];
    const slice = async (scenario: Scenario, n: number): Promise<number> => {
      if (scenario === 'pgbench') {
        const transactions = Math.ceil(n / CLIENTS);
        const bundles = take(transactions * CLIENTS);
        await db!.query(`SELECT setval('${PGBENCH_SEQUENCE}', $1, false)`, [bundles[0]]);
        rawBundles.push(...bundles);
        return runPgbench(PGBENCH!, url, pgbenchScript, { clients: CLIENTS, transactions });
      }
      const bundles = take(n);
      const response = isSpawned(scenario)
        ? await spawned.get(scenario)!.load.run({ op: 'throughput', surface: 'rest', pendingIds: bundles.map((i) => seededIds(i).pendingId), concurrency: CLIENTS })
        : scenario === 'raw' || scenario === 'raw-unnamed'
          ? await load!.run({ op: 'raw', transactions: bundles.map((i) => replayFor(captured, i, scenario === 'raw')), concurrency: CLIENTS })
          : scenario === 'rest-memory-limits'
            ? await memoryLoad!.run({ op: 'throughput', surface: 'rest', pendingIds: bundles.map((i) => seededIds(i).pendingId), concurrency: CLIENTS })
            : await load!.run({ op: 'throughput', surface: scenario, pendingIds: bundles.map((i) => seededIds(i).pendingId), concurrency: CLIENTS });
      if (scenario === 'raw' || scenario === 'raw-unnamed') rawBundles.push(...bundles);
      const won = response.outcomes.filter((outcome) => outcome.claimed).length;
      for (const outcome of response.outcomes) if (outcome.error) errors.push(outcome.error);
      if (won !== n) errors.push(`${scenario}: ${won} of ${n} answers won`);
      return (won / response.elapsedMs) * 1000;
    };
    progress('answer-path: warm-up');
    for (const scenario of SCENARIOS) await slice(scenario, WARMUP);
    const tps = new Map<Scenario, number[]>(SCENARIOS.map((scenario) => [scenario, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let index = 0; index < SCENARIOS.length; index++) {
        const scenario = SCENARIOS[(index + round) % SCENARIOS.length];
        const value = await slice(scenario, PER_SLICE);
        tps.get(scenario)?.push(value);
        progress(`answer-path: round ${round + 1} ${scenario}: ${value.toFixed(0)}/s`);
      }
    }
    const replayed = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM task_session_messages WHERE type = 'clarification_request' AND metadata->>'status' = 'answered' AND task_session_id = ANY($1::text[])`,
      [rawBundles.map((i) => seededIds(i).sessionId)],
    );
    if (Number(replayed.rows[0]?.n) !== rawBundles.length) errors.push(`raw replay answered ${replayed.rows[0]?.n} of ${rawBundles.length} bundles`);

    // Planning vs execution of the claim's statements, on a fresh bundle, rolled back.
    const plans: string[] = [];
    let claimPlan = '';
    const client = await db.connect();
    try {
      await client.query('BEGIN');
      for (const statement of replayFor(captured, nextBundle)) {
        if (/^\s*(START TRANSACTION|BEGIN|COMMIT|SET TRANSACTION)\b/i.test(statement.sql)) continue;
        const explained = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.parameters);
        const text = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
        const time = (label: string) => Number(new RegExp(`${label} Time: ([\\d.]+) ms`).exec(text)?.[1] ?? Number.NaN);
        plans.push(`| \`${statement.sql.trim().slice(0, 60).replace(/\s+/g, ' ')}…\` | ${fixed(time('Planning'))} | ${fixed(time('Execution'))} |`);
        if (CLAIM_STATEMENT.test(statement.sql)) claimPlan = text;
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    const prepared = await preparedClaimPlanning(db, (k) => replayFor(captured, nextBundle + 1 + k));

    const med = (scenario: Scenario) => median(tps.get(scenario) ?? []);
    const perRound = (top: Scenario, bottom: Scenario) => (tps.get(top) ?? []).map((value, i) => value / ((tps.get(bottom) ?? [])[i]));
    const restRaw = median(perRound('rest', 'raw'));
    const restPgbench = median(perRound('rest', 'pgbench'));
    const graphqlRest = median(perRound('graphql', 'rest'));
    const mcpRest = median(perRound('mcp', 'rest'));
    const sharedLimits = median(perRound('rest', 'rest-memory-limits'));
    const spread = (scenario: Scenario) => {
      const values = tps.get(scenario) ?? [];
      return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
    };

    report.say(`Run: ${await machineLine(server.description)}. ${ROUNDS} rounds × ${PER_SLICE} answers per scenario, ${CLIENTS} concurrent clients, scenarios interleaved round-robin (order rotated each round) after a ${WARMUP}-answer warm-up each.`);
    report.say();
    report.table(
      ['scenario', 'answers/s (median of rounds)', 'range over rounds', 'per round'],
      SCENARIOS.map((scenario) => [
        LABEL[scenario] ?? scenario.toUpperCase(),
        med(scenario).toFixed(0),
        spread(scenario),
        (tps.get(scenario) ?? []).map((value) => value.toFixed(0)).join(', '),
      ]),
      ['l', 'r', 'r', 'l'],
    );
    report.say();
    report.table(
      ['ratio (median of per-round ratios)', 'before', 'after', 'target', ''],
      [
        ['REST / raw claim tx', '0.16× (246/s vs 1,535 tps)', `${fixed(restRaw)}×`, '≥ 0.5×', ratioVerdict(restRaw, 0.5, false)],
        PGBENCH
          ? ['REST / the claim tx driven by `pgbench -c 16`', '0.37× (375/s vs 1,131 tps)', `${fixed(restPgbench)}×`, '≥ 0.5×', ratioVerdict(restPgbench, 0.5, false)]
          : ['REST / the claim tx driven by `pgbench -c 16`', '0.37× (375/s vs 1,131 tps)', 'not run: no pgbench binary (BENCH_PGBENCH)', '≥ 0.5×', ''],
        ...(COMPARES_BEFORE
          ? [['REST, this build / the build before (each in its own process, limits in memory)', '—', `${fixed(median(perRound('spawned-now', 'spawned-before')))}×`, '≥ 0.95×', ratioVerdict(median(perRound('spawned-now', 'spawned-before')), 0.95, false)]]
          : []),
        ...(WITH_PGBOUNCER
          ? [['REST behind PgBouncer / REST direct (this build, each in its own process)', '—', `${fixed(median(perRound('spawned-pgbouncer', 'spawned-now')))}×`, '—', '']]
          : []),
        ...(PGBENCH ? [['raw claim tx through `pg` / through pgbench', '0.43× (0.37× / 0.86×)', `${fixed(median(perRound('raw', 'pgbench')))}×`, '—', '']] : []),
        ['REST / raw claim tx, every statement unnamed', '—', `${fixed(median(perRound('rest', 'raw-unnamed')))}×`, '—', ''],
        ['raw claim tx as sent / unnamed', '—', `${fixed(median(perRound('raw', 'raw-unnamed')))}×`, '—', ''],
        ['REST, limits in PostgreSQL / limits in memory', '—', `${fixed(sharedLimits)}×`, '≥ 0.9×', ratioVerdict(sharedLimits, 0.9, false)],
        ['GraphQL / REST', '1.06× (0.17× / 0.16×)', `${fixed(graphqlRest)}×`, '0.85–1.15×', graphqlRest >= 0.85 && graphqlRest <= 1.15 ? 'met' : '**MISSED**'],
        ['MCP / REST', '0.75× (0.12× / 0.16×)', `${fixed(mcpRest)}×`, '0.85–1.15×', mcpRest >= 0.85 && mcpRest <= 1.15 ? 'met' : '**MISSED**'],
        ['MCP with the plain HTTP client REST uses / REST (the server side alone)', '—', `${fixed(median(perRound('mcp-http', 'rest')))}×`, '—', ''],
      ],
      ['l', 'r', 'r', 'r', 'l'],
    );
    report.say();
    report.say(`Errors: ${errors.length === 0 ? 'none (every answer won; every replayed claim answered its bundle)' : errors.slice(0, 10).join('; ')}.`);
    report.say();
    report.say(`One winning REST answer, as captured on the pool (${captured.all.length} statements; the baseline replays the ${captured.claim.length} of the claim transaction):`);
    report.say();
    report.code(captured.all.map((statement, i) => `${i + 1}. ${statement.sql.trim().replace(/\s+/g, ' ').slice(0, 150)}`).join('\n'));
    report.say();
    report.say('Planning vs execution of the claim transaction’s statements, unnamed (EXPLAIN ANALYZE on a fresh bundle, rolled back; ms):');
    report.say();
    report.say('| statement | planning | execution |');
    report.say('|---|---:|---:|');
    for (const line of plans) report.say(line);
    report.say();
    report.say(
      `The claim statement prepared (PREPARE, then EXPLAIN ANALYZE EXECUTE on fresh bundles in one rolled-back transaction; ms): ${prepared.map((run) => `execution ${run.index}: planning ${fixed(run.planning)}, execution ${fixed(run.execution)}`).join('; ')} — after PostgreSQL's five custom plans the cached generic plan is reused (plan_cache_mode ${prepared[0]?.mode ?? '?'}).`,
    );
    report.say();
    report.say('<details><summary>EXPLAIN (ANALYZE, BUFFERS) of the claim statement</summary>');
    report.say();
    report.code(claimPlan);
    report.say();
    report.say('</details>');
    if (errors.length > 0) process.exitCode = 1;
  } finally {
    await load?.close().catch(() => undefined);
    await memoryLoad?.close().catch(() => undefined);
    for (const { server: child, load: spawnedLoad } of spawned.values()) {
      await spawnedLoad.close().catch(() => undefined);
      await child.stop().catch(() => undefined);
    }
    await bouncer?.stop().catch(() => undefined);
    await memoryBench?.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await bench?.close().catch(() => undefined);
    await server.stop();
  }
}
