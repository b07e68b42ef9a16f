/**
 * Target 2 of docs/benchmarks.md, contention: bursts of 64 concurrent answerers on ONE bundle (1 winner, 63 losers) vs 64
 * answerers on 64 distinct bundles, interleaved; p99 (and p50) of the burst latency (first request
 * sent → last response). The 64 answerers of a burst are spread over REST, GraphQL and MCP. Every
 * one-bundle burst must have exactly one winner (and every distinct burst 64): a violation fails
 * the run (exit code 1).
 *
 * Environment: BENCH_CONTENTION_ROUNDS (40 bursts of each kind), BENCH_BURST (64).
 */
import pg from 'pg';
import { SURFACES } from './support/answer-clients.js';
import { type BenchApp, createUserWithToken, startBenchApp } from './support/app.js';
import { type BenchServer, startBenchServer } from './support/database.js';
import { envInt, fixed, percentile } from './support/env.js';
import { Load } from './support/load.js';
import type { LoadResponse } from './support/load.worker.js';
import { machineLine, progress, Report, ratioVerdict } from './support/report.js';
import { seed, seededIds } from './support/seed.js';

// A p99 needs a hundred samples: of 40 it is the worst burst.
const ROUNDS = envInt('BENCH_CONTENTION_ROUNDS', 100);
const BURST = envInt('BENCH_BURST', 64);
const WARMUP = 3;

export async function run(report: Report): Promise<void> {
  const server: BenchServer = await startBenchServer();
  let bench: BenchApp | undefined;
  let load: Load | undefined;
  let db: pg.Pool | undefined;
  try {
    const url = await server.createDatabase('contention');
    bench = await startBenchApp(url);
    const user = await createUserWithToken(bench.baseUrl, 'answerer');
    db = new pg.Pool({ connectionString: url, max: 2 });
    const total = (WARMUP + ROUNDS) * (1 + BURST);
    progress(`contention: seeding ${total} bundles`);
    await seed(db, { bundles: total, ownerId: user.userId, questions: 1 });
    load = await Load.start({ baseUrl: bench.baseUrl, bearer: user.token, databaseUrl: url, concurrency: BURST });
    let next = 0;
    const violations: string[] = [];
    const errors: string[] = [];
    const surfaceOf = (i: number) => SURFACES[i % SURFACES.length];

    const oneBundle = async (): Promise<LoadResponse> => {
      const { pendingId } = seededIds(next++);
      const response = await load!.run({ op: 'burst', jobs: Array.from({ length: BURST }, (_, i) => ({ surface: surfaceOf(i), pendingId })) });
      const winners = response.outcomes.filter((outcome) => outcome.claimed).length;
      const successors = await db!.query<{ n: string }>(`SELECT count(*) AS n FROM task_session_turns WHERE metadata->>'resume_of' = $1`, [pendingId]);
      if (winners !== 1 || Number(successors.rows[0]?.n) !== 1) {
        violations.push(`${pendingId}: ${winners} winners told, ${successors.rows[0]?.n} successor turns`);
      }
      for (const outcome of response.outcomes) if (outcome.error) errors.push(outcome.error);
      return response;
    };
    const distinct = async (): Promise<LoadResponse> => {
      const jobs = Array.from({ length: BURST }, (_, i) => ({ surface: surfaceOf(i), pendingId: seededIds(next++).pendingId }));
      const response = await load!.run({ op: 'burst', jobs });
      const winners = response.outcomes.filter((outcome) => outcome.claimed).length;
      if (winners !== BURST) violations.push(`distinct burst: ${winners} of ${BURST} won`);
      for (const outcome of response.outcomes) if (outcome.error) errors.push(outcome.error);
      return response;
    };

    progress('contention: warm-up');
    for (let i = 0; i < WARMUP; i++) {
      await oneBundle();
      await distinct();
    }
    const one: number[] = [];
    const many: number[] = [];
    const loserLatency: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which kind goes first, so neither always follows the other.
      const kinds = round % 2 === 0 ? ([oneBundle, distinct] as const) : ([distinct, oneBundle] as const);
      for (const kind of kinds) {
        const response = await kind();
        if (kind === oneBundle) {
          one.push(response.elapsedMs);
          response.outcomes.forEach((outcome, i) => !outcome.claimed && loserLatency.push(response.latencies[i]));
        } else many.push(response.elapsedMs);
      }
      if ((round + 1) % 10 === 0) progress(`contention: ${round + 1}/${ROUNDS} rounds`);
    }
    const p = (values: number[], q: number) => percentile(values, q);
    const ratio99 = p(one, 99) / p(many, 99);
    const ratio50 = p(one, 50) / p(many, 50);
    report.say(`Run: ${await machineLine(server.description)}. ${ROUNDS} bursts of each kind after ${WARMUP} warm-up bursts, alternating; ${BURST} concurrent answerers per burst, answerer *i* on ${SURFACES.join('/')}[*i* mod 3] (so 22 REST, 21 GraphQL, 21 MCP), one-question bundles, auth enabled, rate limits raised.`);
    report.say();
    report.table(
      ['burst of 64', 'p50 ms', 'p99 ms', 'min ms', 'max ms'],
      [
        ['one bundle (1 winner, 63 losers)', fixed(p(one, 50), 1), fixed(p(one, 99), 1), fixed(Math.min(...one), 1), fixed(Math.max(...one), 1)],
        ['64 distinct bundles (64 winners)', fixed(p(many, 50), 1), fixed(p(many, 99), 1), fixed(Math.min(...many), 1), fixed(Math.max(...many), 1)],
        ['one bundle: a loser’s own latency', fixed(p(loserLatency, 50), 1), fixed(p(loserLatency, 99), 1), fixed(Math.min(...loserLatency), 1), fixed(Math.max(...loserLatency), 1)],
      ],
      ['l', 'r', 'r', 'r', 'r'],
    );
    report.say();
    report.table(
      ['ratio', 'before', 'after', 'target', ''],
      [
        ['one-bundle burst p99 / distinct-bundles burst p99', '0.61–0.75×', `${fixed(ratio99)}×`, '≤ 0.5×', ratioVerdict(ratio99, 0.5)],
        ['one-bundle burst p50 / distinct-bundles burst p50', '—', `${fixed(ratio50)}×`, '(information)', ''],
        ['exactly-one-winner violations', '0 in 60 bursts', `${violations.length} in ${ROUNDS + WARMUP} bursts`, '0', violations.length === 0 ? 'met' : '**FAILED**'],
      ],
      ['l', 'r', 'r', 'r', 'l'],
    );
    report.say();
    report.say(`Errors (non-200 or tool errors): ${errors.length === 0 ? 'none' : `${errors.length}: ${[...new Set(errors)].slice(0, 5).join('; ')}`}.`);
    if (violations.length > 0) {
      report.say(`Violations: ${violations.slice(0, 10).join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    await load?.close().catch(() => undefined);
    await db?.end().catch(() => undefined);
    await bench?.close().catch(() => undefined);
    await server.stop();
  }
}
