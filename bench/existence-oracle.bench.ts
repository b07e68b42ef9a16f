/**
 * The existence oracle by timing (A3 in time): a foreign id and a fabricated id must cost the same, or the time of a 404 tells
 * a caller which pending ids exist. One caller who sees no workspace asks for seeded bundles of
 * another user (foreign) and for random ids (fabricated), round-robin, on GET /clarification/:id,
 * POST /clarification/:id/respond and GraphQL `question`; the report puts the two medians side by side.
 *
 * Environment: BENCH_ORACLE_ITERATIONS (1500 per scenario), BENCH_ORACLE_BUDGET_S (90).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ANSWERS } from './support/answer-clients.js';
import { type BenchApp, createUserWithToken, startBenchApp } from './support/app.js';
import { type BenchServer, startBenchServer } from './support/database.js';
import { envInt, fixed, median } from './support/env.js';
import { machineLine, progress, type Report } from './support/report.js';
import { seed, seededIds } from './support/seed.js';
import { measureRoundRobin, ms, type Scenario } from './support/stats.js';

const ITERATIONS = envInt('BENCH_ORACLE_ITERATIONS', 1500);
const BUDGET_MS = envInt('BENCH_ORACLE_BUDGET_S', 90) * 1000;
const BUNDLES = 2000;

type Probe = (pendingId: string) => Promise<number>;

function probes(baseUrl: string, bearer: string): Record<string, Probe> {
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  const statusOf = async (response: Response): Promise<number> => {
    await response.arrayBuffer();
    return response.status;
  };
  return {
    'GET /api/v1/clarification/:id': async (id) => statusOf(await fetch(`${baseUrl}/api/v1/clarification/${id}`, { headers })),
    'POST /api/v1/clarification/:id/respond': async (id) =>
      statusOf(await fetch(`${baseUrl}/api/v1/clarification/${id}/respond`, { method: 'POST', headers, body: JSON.stringify({ answers: ANSWERS }) })),
    'GraphQL question': async (id) =>
      statusOf(
        await fetch(`${baseUrl}/graphql`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: 'query ($id: String!) { question(pendingId: $id) { pendingId } }', variables: { id } }),
        }),
      ),
  };
}

export async function run(report: Report): Promise<void> {
  const server: BenchServer = await startBenchServer();
  let bench: BenchApp | undefined;
  let db: pg.Pool | undefined;
  try {
    const url = await server.createDatabase('oracle');
    bench = await startBenchApp(url);
    const owner = await createUserWithToken(bench.baseUrl, 'owner');
    const stranger = await createUserWithToken(bench.baseUrl, 'stranger');
    db = new pg.Pool({ connectionString: url, max: 2 });
    progress(`existence-oracle: seeding ${BUNDLES} bundles of another user`);
    await seed(db, { bundles: BUNDLES, ownerId: owner.userId, questions: 1 });
    const routes = probes(bench.baseUrl, stranger.token);
    let next = 0;
    const foreignId = () => seededIds(next++ % BUNDLES).pendingId;
    const statuses = new Map<string, Set<number>>();
    const scenarios: Scenario[] = Object.entries(routes).flatMap(([route, probe]) =>
      (['foreign', 'fabricated'] as const).map((kind) => ({
        key: `${route}|${kind}`,
        label: `${route} ${kind}`,
        run: async () => {
          const status = await probe(kind === 'foreign' ? foreignId() : randomUUID());
          const seen = statuses.get(`${route}|${kind}`) ?? new Set<number>();
          seen.add(status);
          statuses.set(`${route}|${kind}`, seen);
        },
      })),
    );
    progress('existence-oracle: measuring');
    const samples = await measureRoundRobin(scenarios, { warmup: 50, iterations: ITERATIONS, budgetMs: BUDGET_MS });

    report.say(`Machine: ${await machineLine(server.description)}.`);
    report.say();
    report.say('A caller who sees no workspace, asking for another user’s bundles (foreign) and for random ids (fabricated), round-robin in one run. Equal medians mean the 404 tells nothing.');
    report.say();
    const rows = Object.keys(routes).map((route) => {
      const foreign = samples.get(`${route}|foreign`) ?? [];
      const fabricated = samples.get(`${route}|fabricated`) ?? [];
      const seen = [...(statuses.get(`${route}|foreign`) ?? []), ...(statuses.get(`${route}|fabricated`) ?? [])];
      return [
        route,
        String(foreign.length),
        ms(median(foreign)),
        ms(median(fabricated)),
        fixed(median(foreign) / median(fabricated)),
        [...new Set(seen)].join(', '),
      ];
    });
    report.table(['entry point', 'n each', 'foreign p50 ms', 'fabricated p50 ms', 'foreign / fabricated', 'statuses'], rows, ['l', 'r', 'r', 'r', 'r', 'l']);
  } finally {
    await db?.end();
    await bench?.close();
    await server.stop();
  }
}
