/**
 * The pending list's statements are built with the query builder (the shared visibility disjunction
 * and keyset bound); before, they were hand-written SQL text, frozen in `hand-built-sql/`. The builder
 * must not change what PostgreSQL does with them: on the same data, for the first and a deep page, an
 * unscoped caller (one walk) and a scoped one (merged walks per key), custom and generic plans, the
 * plan of each builder statement has exactly the shape of the hand-written one — the same nodes, on
 * the same relations and indexes, with the same index conditions and filters.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { clarificationStatements } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { at, insertSession, insertTurn, syncBundleIndex } from '../../support/bundles.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Join Type'?: string;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  Filter?: string;
  'Join Filter'?: string;
  Plans?: PlanNode[];
}

/** What makes a plan's shape: every node's kind and what it reads and tests, without costs or row estimates. */
interface Shape {
  node: string;
  relation?: string;
  index?: string;
  indexCond?: string;
  join?: string;
  parent?: string;
  subplan?: string;
  filter?: string;
  joinFilter?: string;
  children: Shape[];
}

function shapeOf(node: PlanNode): Shape {
  const optional: Omit<Shape, 'node' | 'children'> = {
    relation: node['Relation Name'],
    index: node['Index Name'],
    indexCond: node['Index Cond'],
    join: node['Join Type'],
    parent: node['Parent Relationship'],
    subplan: node['Subplan Name'],
    filter: node.Filter,
    joinFilter: node['Join Filter'],
  };
  const present = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { node: node['Node Type'], ...present, children: (node.Plans ?? []).map(shapeOf) };
}

function nodesOf(shape: Shape): Shape[] {
  return [shape, ...shape.children.flatMap(nodesOf)];
}

const handBuilt = (name: string): string => readFileSync(new URL(`hand-built-sql/${name}.sql`, import.meta.url), 'utf8');

const WORKSPACES = ['ws-plan-a', 'ws-plan-b', 'ws-plan-c'];
const SESSIONS_PER_WORKSPACE = 4;
const BUNDLES_PER_SESSION = 250;

describe('the pending list built with the query builder plans exactly as the hand-written SQL did', () => {
  let t: TestApp;
  let client: pg.PoolClient;
  let statements: ReturnType<typeof clarificationStatements>['statements'];
  /** A position about two thirds into the backlog: a deep page. */
  let deep: { at: string; pendingId: string };

  beforeAll(async () => {
    t = await startApp();
    for (const workspace of WORKSPACES) await t.db.query(`INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $1, '')`, [workspace]);
    // Sessions in three workspaces, one with none and one naming a workspace that does not exist (the '' key).
    const homes = [...WORKSPACES, '', 'ws-plan-missing'];
    let session = 0;
    for (const workspaceId of homes) {
      for (let index = 0; index < SESSIONS_PER_WORKSPACE; index += 1) {
        const seeded = await insertSession(t.db, { workspaceId });
        const turnId = await insertTurn(t.db, { ...seeded, startedAt: at(0) });
        await t.db.query(
          `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata, created_at)
           SELECT 'plan-' || $5::int || '-' || n, $1, $2, $3, 'agent', 'clarification_request', 'q',
                  jsonb_build_object('pending_id', 'plan-' || $5::int || '-' || lpad(n::text, 4, '0'), 'question_id', 'q1', 'question_index', 0,
                    'question_total', 1, 'status', 'pending', 'context', '',
                    'question', jsonb_build_object('id', 'q1', 'title', 't', 'prompt', 'p', 'options', '[]'::jsonb)),
                  $4::timestamptz + make_interval(secs => n * 60 + $5::int)
             FROM generate_series(1, $6::int) AS n`,
          [seeded.sessionId, seeded.taskId, turnId, at(1), session, BUNDLES_PER_SESSION],
        );
        session += 1;
      }
    }
    await syncBundleIndex(t.db);
    await t.db.query('ANALYZE');
    const { rows } = await t.db.query<{ at: string; pending_id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, pending_id FROM clarification_bundles
        ORDER BY created_at, pending_id OFFSET (SELECT count(*) * 2 / 3 FROM clarification_bundles) LIMIT 1`,
    );
    deep = { at: rows[0].at, pendingId: rows[0].pending_id };
    statements = clarificationStatements().statements;
    client = await t.db.connect();
  }, 120_000);

  afterAll(async () => {
    client?.release();
    await t?.close();
  });

  function builderText(label: string): string {
    const statement = statements.find((candidate) => candidate.label === label);
    if (!statement) throw new Error(`no named statement ${label}`);
    return statement.text;
  }

  async function planShape(text: string, values: unknown[], mode: 'custom' | 'generic'): Promise<Shape> {
    await client.query(`SET plan_cache_mode = ${mode === 'generic' ? 'force_generic_plan' : 'force_custom_plan'}`);
    await client.query(`PREPARE plan_shape AS ${text}`);
    try {
      const literals = values.map((value) => {
        if (value === null) return 'NULL';
        if (Array.isArray(value)) return `ARRAY[${(value as string[]).map((item) => client.escapeLiteral(item)).join(', ')}]::text[]`;
        return client.escapeLiteral(typeof value === 'number' ? String(value) : (value as string));
      });
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE plan_shape(${literals.join(', ')})`);
      return shapeOf(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await client.query('DEALLOCATE plan_shape');
      await client.query('RESET plan_cache_mode');
    }
  }

  // Both texts bind limit, workspace_id, created_since, after_at, after_id, the visible ids, (the walk keys) in that order.
  const page = (after: { at: string; pendingId: string } | undefined): unknown[] => [51, null, null, after?.at ?? null, after?.pendingId ?? null];
  const cases: Array<[string, 'pending_heads' | 'pending_candidates', (deepAfter: { at: string; pendingId: string }) => unknown[]]> = [
    ['unscoped, first page', 'pending_heads', () => [...page(undefined), null]],
    ['unscoped, deep page', 'pending_heads', (deepAfter) => [...page(deepAfter), null]],
    ['scoped to two workspaces, first page', 'pending_candidates', () => [...page(undefined), WORKSPACES.slice(0, 2), ['', ...WORKSPACES.slice(0, 2)]]],
    ['scoped to two workspaces, deep page', 'pending_candidates', (deepAfter) => [...page(deepAfter), WORKSPACES.slice(0, 2), ['', ...WORKSPACES.slice(0, 2)]]],
  ];

  describe.each(['custom', 'generic'] as const)('%s plans', (mode) => {
    it.each(cases)('%s', async (_name, label, values) => {
      const bound = values(deep);
      const before = await planShape(handBuilt(label), bound, mode);
      const after = await planShape(builderText(label), bound, mode);
      // The plans walk the bundle index (not a scan of the backlog), so the comparison is of plans that matter.
      expect(nodesOf(before).some((node) => node.index?.startsWith('clarification_bundles_'))).toBe(true);
      expect(after).toEqual(before);
    });
  });

  it('the two statements return the same rows on every case', async () => {
    for (const [, label, values] of cases) {
      const bound = values(deep);
      const before = await client.query(handBuilt(label), bound);
      const after = await client.query(builderText(label), bound);
      expect(before.rows.length).toBeGreaterThan(0);
      expect(after.rows).toEqual(before.rows);
    }
  });
});
