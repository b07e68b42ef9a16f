/**
 * Benchmark of the pending list (list_pending_questions_kandev), targets 4 and 5 of docs/benchmarks.md:
 * target 4 (scoped, half-visible and nothing-visible callers vs unscoped; a first page over
 * BENCH_LIST_BUNDLES vs over 1,000) and target 5 (planning vs execution).
 *
 * Environment: BENCH_DATABASE_URL (a PostgreSQL server to create the two databases on; an embedded
 * one otherwise), BENCH_LIST_BUNDLES (1000000), BENCH_ITERATIONS (100), BENCH_WARMUP (10),
 * BENCH_BUDGET_S (measurement wall-time cap, 240).
 */
import pg from 'pg';
import { DataSource } from 'typeorm';
import { AccessService, userCaller, type WorkspaceVisibility } from '#authorization';
import type { PendingListQuery } from '#clarification/testing';
import { decodeCursor } from '#common';
import { BENCH_ADMIN_TOKEN, type BenchApp, createUserWithToken, ListClient, type PendingPage, startBenchApp } from './support/app.js';
import { listHeadsStatement, rowsOfStatement, type Statement } from './support/captured-sql.js';
import { type BenchServer, startBenchServer } from './support/database.js';
import { explain, type PlanReport } from './support/explain.js';
import { seed, pendingIdOf, SCOPED_EVERY, type SeedResult } from './support/seed.js';
import { envInt } from './support/env.js';
import { machineLine, progress, type Report } from './support/report.js';
import { measureRoundRobin, ms, type Scenario, summarize, type Summary } from './support/stats.js';

const PAGE = 50;
const BIG = envInt('BENCH_LIST_BUNDLES', 1_000_000);
const SMALL = 1_000;
/** Unscoped deep page: this many pages into the cursor walk (bundle 50,000 of 100,000). */
const DEEP_PAGES = 1_000;

const ITERATIONS = envInt('BENCH_ITERATIONS', 100);
const WARMUP = envInt('BENCH_WARMUP', 10);
const BUDGET_MS = envInt('BENCH_BUDGET_S', 240) * 1000;


function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`sanity check failed: ${message}`);
}

interface Dataset {
  label: string;
  bench: BenchApp;
  db: pg.Pool;
  seeded: SeedResult;
  admin: ListClient;
  scoped: ListClient;
  /** A user who owns the 500 odd-numbered workspaces: sees half the bundles. */
  half: ListClient;
  /** A user who owns nothing and is a member of the scoped user's 10 workspaces: sees what it sees. */
  member: ListClient;
  /** A user who owns no workspace: sees none of the seeded bundles. */
  nobody: ListClient;
  unscopedVisibility: WorkspaceVisibility;
  scopedVisibility: WorkspaceVisibility;
  halfVisibility: WorkspaceVisibility;
  memberVisibility: WorkspaceVisibility;
  nobodyVisibility: WorkspaceVisibility;
  rowsOf: Statement;
  dataSource: DataSource;
}

async function prepare(server: BenchServer, label: string, bundles: number): Promise<Dataset> {
  const url = await server.createDatabase(label);
  // A first call on a just-seeded million-bundle database reads cold pages on a shared machine.
  const bench = await startBenchApp(url, { dbStatementTimeoutMs: 120_000 });
  const scopedUser = await createUserWithToken(bench.baseUrl, 'scoped');
  const halfUser = await createUserWithToken(bench.baseUrl, 'half');
  const nobodyUser = await createUserWithToken(bench.baseUrl, 'nobody');
  const memberUser = await createUserWithToken(bench.baseUrl, 'member');
  const db = new pg.Pool({ connectionString: url, max: 2 });
  db.on('error', (error) => progress(`${label}: idle pg client error: ${error.message}`));
  progress(`${label}: seeding ${bundles} bundles`);
  const seeded = await seed(db, { bundles, scopedUserId: scopedUser.userId, halfUserId: halfUser.userId, memberUserId: memberUser.userId });
  progress(`${label}: seeded ${seeded.rows} rows in ${seeded.seconds.toFixed(1)} s`);
  const access = bench.app.get(AccessService);
  const dataSource = bench.app.get(DataSource);
  return {
    label,
    bench,
    db,
    seeded,
    admin: await ListClient.connect(bench.baseUrl, BENCH_ADMIN_TOKEN),
    scoped: await ListClient.connect(bench.baseUrl, scopedUser.token),
    half: await ListClient.connect(bench.baseUrl, halfUser.token),
    member: await ListClient.connect(bench.baseUrl, memberUser.token),
    nobody: await ListClient.connect(bench.baseUrl, nobodyUser.token),
    unscopedVisibility: { all: true },
    scopedVisibility: await access.visibleWorkspaceIds(userCaller(scopedUser.userId)),
    halfVisibility: await access.visibleWorkspaceIds(userCaller(halfUser.userId)),
    memberVisibility: await access.visibleWorkspaceIds(userCaller(memberUser.userId)),
    nobodyVisibility: await access.visibleWorkspaceIds(userCaller(nobodyUser.userId)),
    rowsOf: await rowsOfStatement(dataSource),
    dataSource,
  };
}

/** The first calls after seeding warm the caches; one that fails (e.g. a pool timeout) is retried. */
async function warm(client: ListClient): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.list({ limit: PAGE });
      return;
    } catch (error) {
      if (attempt === 5) throw error;
      progress(`warming up: attempt ${attempt} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Follows next_cursor through MCP `pages` times (pages of 50) and returns the cursor reached. */
async function walk(client: ListClient, pages: number): Promise<string> {
  let cursor = '';
  for (let page = 0; page < pages; page++) {
    const result: PendingPage = await client.list(cursor ? { limit: PAGE, cursor } : { limit: PAGE });
    check(result.count === PAGE && result.next_cursor !== '', `page ${page + 1} of the walk is full and has a next_cursor`);
    cursor = result.next_cursor;
  }
  return cursor;
}

function after(cursor: string): PendingListQuery['after'] {
  if (cursor === '') return undefined;
  const position = decodeCursor(cursor);
  if (!position) throw new Error('undecodable cursor');
  return { at: position.at, pendingId: position.id };
}

async function headsStatement(set: Dataset, visibility: WorkspaceVisibility, cursor: string): Promise<Statement> {
  return listHeadsStatement(set.dataSource, {
    visibility,
    workspaceId: undefined,
    createdSince: undefined,
    after: after(cursor),
    // The service asks for one more head than it returns, to know whether a next page exists.
    limit: PAGE + 1,
  });
}

/** What the service sends for one page, straight through pg: the heads query, then rowsOf the page. */
async function rawPage(set: Dataset, heads: Statement): Promise<number> {
  const result = await set.db.query<{ pending_id: string }>({ name: heads.name, text: heads.sql, values: heads.parameters });
  const ids = result.rows.slice(0, PAGE).map((row) => row.pending_id);
  if (ids.length > 0) await set.db.query(set.rowsOf.sql, [ids]);
  return ids.length;
}

function mcp(client: ListClient, cursor: string): () => Promise<PendingPage> {
  return () => client.list(cursor ? { limit: PAGE, cursor } : { limit: PAGE });
}

export async function run(report: Report): Promise<void> {
  const say = (line = '') => report.say(line);
  const wallStart = performance.now();
  const server = await startBenchServer();
  const sets: Dataset[] = [];
  try {
    const big = await prepare(server, `${BIG / 1000}k`, BIG);
    sets.push(big);
    const small = await prepare(server, '1k', SMALL);
    sets.push(small);

    for (const set of sets) for (const client of [set.admin, set.scoped, set.half, set.member, set.nobody]) await warm(client);

    // --- sanity: the seeded data lists as expected (the scan order is the seed order) ------------
    const firstUnscoped = await big.admin.list({ limit: PAGE });
    check(firstUnscoped.count === PAGE, 'unscoped first page is full');
    check(firstUnscoped.bundles.every((bundle, i) => bundle.pending_id === pendingIdOf(i)), 'unscoped first page = bundles 0..49');
    const firstScoped = await big.scoped.list({ limit: PAGE });
    check(
      firstScoped.bundles.every((bundle, i) => bundle.pending_id === pendingIdOf(i * SCOPED_EVERY)),
      'scoped first page = bundles 0, 100, …, 4900',
    );
    check((await big.nobody.list({ limit: PAGE })).count === 0, 'a user owning no workspace sees nothing');
    const firstMember = await big.member.list({ limit: PAGE });
    check(
      firstMember.count === PAGE && firstMember.bundles.every((bundle, i) => bundle.pending_id === firstScoped.bundles[i]?.pending_id),
      'member first page = the scoped first page (the same 10 workspaces, through membership)',
    );
    const firstHalf = await big.half.list({ limit: PAGE });
    check(firstHalf.count === PAGE && firstHalf.bundles.every((bundle, i) => bundle.pending_id === pendingIdOf(2 * i + 1)), 'half first page = bundles 1, 3, …, 99');

    // --- deep cursors, reached by walking next_cursor through MCP --------------------------------
    progress(`walking ${DEEP_PAGES} unscoped pages through MCP`);
    let t0 = performance.now();
    const deepUnscopedCursor = await walk(big.admin, DEEP_PAGES);
    const walkUnscopedS = (performance.now() - t0) / 1000;
    const deepUnscoped = await big.admin.list({ limit: PAGE, cursor: deepUnscopedCursor });
    check(deepUnscoped.bundles[0]?.pending_id === pendingIdOf(DEEP_PAGES * PAGE), 'deep unscoped page starts at bundle 50,000');
    const scopedPages = Math.floor(big.seeded.scopedBundles / PAGE) - 1;
    t0 = performance.now();
    const deepScopedCursor = await walk(big.scoped, scopedPages);
    const walkScopedS = (performance.now() - t0) / 1000;
    const deepScoped = await big.scoped.list({ limit: PAGE, cursor: deepScopedCursor });
    check(deepScoped.count === PAGE && deepScoped.next_cursor === '', 'deep scoped page is the last, full page');
    check(deepScoped.bundles[0]?.pending_id === pendingIdOf(scopedPages * PAGE * SCOPED_EVERY), 'deep scoped page start');

    // --- the exact SQL the repository sends, captured from PendingListRepository -----------------
    const stmt = {
      unscopedFirst: await headsStatement(big, big.unscopedVisibility, ''),
      scopedFirst: await headsStatement(big, big.scopedVisibility, ''),
      nobodyFirst: await headsStatement(big, big.nobodyVisibility, ''),
      halfFirst: await headsStatement(big, big.halfVisibility, ''),
      memberFirst: await headsStatement(big, big.memberVisibility, ''),
      unscopedDeep: await headsStatement(big, big.unscopedVisibility, deepUnscopedCursor),
      scopedDeep: await headsStatement(big, big.scopedVisibility, deepScopedCursor),
      smallUnscopedFirst: await headsStatement(small, small.unscopedVisibility, ''),
      smallScopedFirst: await headsStatement(small, small.scopedVisibility, ''),
    };
    check((await rawPage(big, stmt.unscopedFirst)) === PAGE, 'raw unscoped first page is full');
    check((await rawPage(big, stmt.scopedDeep)) === PAGE, 'raw scoped deep page is full');

    // --- timings ------------------------------------------------------------------------------------
    const scenarios: Scenario[] = [
      { key: 'mcp.first.unscoped', label: 'MCP first page, unscoped (admin)', run: mcp(big.admin, '') },
      { key: 'mcp.first.scoped', label: 'MCP first page, scoped (PAT, 10 of 1k workspaces)', run: mcp(big.scoped, '') },
      { key: 'mcp.deep.unscoped', label: `MCP deep page, unscoped (page ${DEEP_PAGES + 1})`, run: mcp(big.admin, deepUnscopedCursor) },
      { key: 'mcp.deep.scoped', label: `MCP deep page, scoped (page ${scopedPages + 1}, the last)`, run: mcp(big.scoped, deepScopedCursor) },
      { key: 'sql.first.unscoped', label: 'pg first page, unscoped (heads + rowsOf)', run: () => rawPage(big, stmt.unscopedFirst) },
      { key: 'sql.first.scoped', label: 'pg first page, scoped (heads + rowsOf)', run: () => rawPage(big, stmt.scopedFirst) },
      { key: 'sql.deep.unscoped', label: 'pg deep page, unscoped', run: () => rawPage(big, stmt.unscopedDeep) },
      { key: 'sql.deep.scoped', label: 'pg deep page, scoped', run: () => rawPage(big, stmt.scopedDeep) },
      { key: 'mcp.first.half', label: 'MCP first page, half the workspaces (PAT, 500 of 1k)', run: mcp(big.half, '') },
      { key: 'sql.first.half', label: 'pg first page, half the workspaces', run: () => rawPage(big, stmt.halfFirst) },
      { key: 'mcp.first.member', label: 'MCP first page, member of 10 of 1k workspaces (PAT, owns none)', run: mcp(big.member, '') },
      { key: 'sql.first.member', label: 'pg first page, member of 10 of 1k workspaces', run: () => rawPage(big, stmt.memberFirst) },
      { key: 'mcp.first.nobody', label: 'MCP first page, user owning no workspace (0 results)', run: mcp(big.nobody, '') },
      { key: 'sql.first.nobody', label: 'pg first page, user owning no workspace', run: () => rawPage(big, stmt.nobodyFirst) },
      { key: 'mcp.first.unscoped.1k', label: '1k dataset: MCP first page, unscoped', run: mcp(small.admin, '') },
      { key: 'mcp.first.scoped.1k', label: '1k dataset: MCP first page, scoped', run: mcp(small.scoped, '') },
      { key: 'sql.first.unscoped.1k', label: '1k dataset: pg first page, unscoped', run: () => rawPage(small, stmt.smallUnscopedFirst) },
    ];
    progress(`measuring ${scenarios.length} scenarios round-robin: ${WARMUP} warm-up + ${ITERATIONS} rounds (cap ${BUDGET_MS / 1000} s)`);
    const samples = await measureRoundRobin(scenarios, {
      warmup: WARMUP,
      iterations: ITERATIONS,
      budgetMs: BUDGET_MS,
      onProgress: (done) => done % 25 === 0 && progress(`round ${done}/${ITERATIONS}`),
    });
    const stats = new Map<string, Summary>([...samples].map(([key, values]) => [key, summarize(values)]));
    const stat = (key: string): Summary => stats.get(key) as Summary;

    // --- plans ----------------------------------------------------------------------------------------
    progress('EXPLAIN ANALYZE');
    const plans: [string, PlanReport][] = [
      [`${big.label}, unscoped, first page`, await explain(big.db, stmt.unscopedFirst)],
      [`${big.label}, scoped (10 of 1k workspaces), first page`, await explain(big.db, stmt.scopedFirst)],
      [`${big.label}, half the workspaces, first page`, await explain(big.db, stmt.halfFirst)],
      [`${big.label}, member of 10 of 1k workspaces, first page`, await explain(big.db, stmt.memberFirst)],
      [`${big.label}, unscoped, deep page (page ${DEEP_PAGES + 1})`, await explain(big.db, stmt.unscopedDeep)],
      [`${big.label}, scoped, deep page (page ${scopedPages + 1})`, await explain(big.db, stmt.scopedDeep)],
      [`${big.label}, user owning no workspace, first page`, await explain(big.db, stmt.nobodyFirst)],
      ['1k, scoped, first page', await explain(small.db, stmt.smallScopedFirst)],
      ['1k, unscoped, first page', await explain(small.db, stmt.smallUnscopedFirst)],
    ];

    // --- report -----------------------------------------------------------------------------------------
    say(`- ${await machineLine(server.description)}; node ${process.version}; ${ITERATIONS} rounds requested, ${WARMUP} warm-up rounds, page size ${PAGE}`);
    for (const set of sets) {
      say(
        `- dataset ${set.label}: ${set.seeded.bundles} active bundles (${set.seeded.rows} clarification rows), ` +
          `${set.seeded.scopedBundles} in the scoped user's 10 workspaces; seeded in ${set.seeded.seconds.toFixed(1)} s`,
      );
    }
    say(`- deep cursors: ${DEEP_PAGES} unscoped pages walked in ${walkUnscopedS.toFixed(1)} s; ${scopedPages} scoped pages in ${walkScopedS.toFixed(1)} s`);
    say();
    say('| scenario | n | p50 ms | p95 ms | mean ms | min ms |');
    say('|---|---:|---:|---:|---:|---:|');
    const labels = new Map<string, string>(scenarios.map((scenario) => [scenario.key, scenario.label] as [string, string]));
    for (const [key, summary] of stats) {
      say(`| ${labels.get(key) ?? key} | ${summary.n} | ${ms(summary.p50)} | ${ms(summary.p95)} | ${ms(summary.mean)} | ${ms(summary.min)} |`);
    }
    say();
    say('| ratio (p50; p95 in brackets) | value | target | |');
    say('|---|---:|---:|---|');
    const ratio = (label: string, top: string, bottom: string, target: number): void => {
      const p50 = stat(top).p50 / stat(bottom).p50;
      const p95 = stat(top).p95 / stat(bottom).p95;
      say(`| ${label} | ${p50.toFixed(2)}× (${p95.toFixed(2)}×) | ≤ ${target}× | ${p50 <= target ? 'met' : 'MISSED'} |`);
    };
    ratio('MCP first page / pg first page, unscoped', 'mcp.first.unscoped', 'sql.first.unscoped', 3);
    ratio('MCP first page / pg first page, scoped', 'mcp.first.scoped', 'sql.first.scoped', 3);
    ratio('deep / first page, MCP unscoped', 'mcp.deep.unscoped', 'mcp.first.unscoped', 1.3);
    ratio('deep / first page, MCP scoped', 'mcp.deep.scoped', 'mcp.first.scoped', 1.3);
    ratio('deep / first page, pg unscoped', 'sql.deep.unscoped', 'sql.first.unscoped', 1.3);
    ratio('deep / first page, pg scoped', 'sql.deep.scoped', 'sql.first.scoped', 1.3);
    ratio(`${big.label} / 1k first page, MCP unscoped`, 'mcp.first.unscoped', 'mcp.first.unscoped.1k', 1.5);
    ratio(`${big.label} / 1k first page, pg unscoped`, 'sql.first.unscoped', 'sql.first.unscoped.1k', 1.5);
    ratio('scoped / unscoped first page, MCP', 'mcp.first.scoped', 'mcp.first.unscoped', 1.5);
    ratio('scoped / unscoped first page, pg', 'sql.first.scoped', 'sql.first.unscoped', 1.5);
    ratio('member of 10 of 1k / unscoped first page, MCP', 'mcp.first.member', 'mcp.first.unscoped', 1.5);
    ratio('member of 10 of 1k / unscoped first page, pg', 'sql.first.member', 'sql.first.unscoped', 1.5);
    ratio('half the workspaces / unscoped first page, MCP', 'mcp.first.half', 'mcp.first.unscoped', 1.5);
    ratio('half the workspaces / unscoped first page, pg', 'sql.first.half', 'sql.first.unscoped', 1.5);
    ratio('nobody / unscoped first page, MCP', 'mcp.first.nobody', 'mcp.first.unscoped', 1.5);
    ratio('nobody / unscoped first page, pg', 'sql.first.nobody', 'sql.first.unscoped', 1.5);
    say();
    say('Planning vs execution (EXPLAIN (ANALYZE) of the heads statement as the repository sends it, unnamed, so planned on every call):');
    say();
    report.table(
      ['statement', 'planning ms', 'execution ms', 'planning / execution', 'rows read by the scans'],
      plans.map(([label, plan]) => [label, plan.planningMs.toFixed(2), plan.executionMs.toFixed(2), `${(plan.planningMs / plan.executionMs).toFixed(2)}×`, plan.drivingRows]),
      ['l', 'r', 'r', 'r', 'r'],
    );
    say();
    say('<details><summary>Plans</summary>');
    for (const [label, plan] of plans) {
      say();
      say(`**${label}**`);
      say();
      say(`Verdict: ${plan.verdict}; execution ${plan.executionMs.toFixed(2)} ms.`);
      say();
      say('```');
      say(plan.text);
      say('```');
    }
    say();
    say('</details>');
    say();
    say(`SQL (${big.label}, scoped, deep page), as captured from PendingListRepository:`);
    say();
    say('```sql');
    say(stmt.scopedDeep.sql);
    say('```');
    say();
    say(`Parameters: \`${JSON.stringify(stmt.scopedDeep.parameters)}\``);
    say();
    say('rowsOf:');
    say();
    say('```sql');
    say(big.rowsOf.sql);
    say('```');
    say();
    say(`Total wall time ${((performance.now() - wallStart) / 1000).toFixed(0)} s.`);
  } finally {
    const warn = (step: string) => (error: unknown) => progress(`cleanup: ${step} failed: ${String(error)}`);
    for (const set of sets) {
      await Promise.all([set.admin.close(), set.scoped.close(), set.half.close(), set.member.close(), set.nobody.close()]).catch(warn(`${set.label} MCP clients`));
      await set.db.end().catch(warn(`${set.label} pool`));
      await set.bench.close().catch(warn(`${set.label} app`));
    }
    await server.stop();
  }
}

