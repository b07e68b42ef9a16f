/**
 * The pending list's two statements are named, so after five calls
 * PostgreSQL may run them on a generic plan (no parameter values known). In that plan the keyset
 * position must still be an index condition of the bundle-index walk — as a filter, a deep page walks
 * its keys from their start, and its cost grows with the backlog (docs/benchmarks.md, "4. Scoped
 * list"). Checked on the plans PostgreSQL makes, with generic plans forced.
 */
import type pg from 'pg';
import { DataSource } from 'typeorm';
import type { PendingListQuery } from '#clarification/testing';
import { listHeadsStatement, type Statement } from '../../../bench/support/captured-sql.js';
import { startApp, type TestApp } from '../../support/app.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

const DEEP = { at: '2026-12-01T10:00:00.123456Z', pendingId: 'bundle-deep' };

describe('the pending list on a generic plan keeps the keyset position in the index walk', () => {
  let t: TestApp;
  let client: pg.PoolClient;

  beforeAll(async () => {
    t = await startApp();
    client = await t.db.connect();
    await client.query(`SET plan_cache_mode = force_generic_plan`);
  });
  afterAll(async () => {
    client.release();
    await t.close();
  });

  async function genericPlan(statement: Statement): Promise<PlanNode[]> {
    const name = `generic_${statement.name ?? 'unnamed'}`;
    await client.query(`PREPARE ${name} AS ${statement.sql}`);
    try {
      const literals = statement.parameters.map((value) => {
        if (value === null) return 'NULL';
        if (Array.isArray(value)) return `ARRAY[${(value as string[]).map((item) => client.escapeLiteral(item)).join(', ')}]::text[]`;
        return client.escapeLiteral(typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value));
      });
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${literals.join(', ')})`);
      return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await client.query(`DEALLOCATE ${name}`);
    }
  }

  const query = (visibility: PendingListQuery['visibility']): PendingListQuery => ({ visibility, workspaceId: undefined, createdSince: undefined, after: DEEP, limit: 51 });

  it.each([
    ['pending_candidates: a caller who sees a few workspaces (one walk per key)', query({ all: false, ids: ['ws-a', 'ws-b'] }), 'pending_candidates'],
    ['pending_heads: an unscoped caller (one walk)', query({ all: true }), 'pending_heads'],
  ])('%s', async (_label, listQuery, label) => {
    const statement = await listHeadsStatement(t.app.get(DataSource), listQuery);
    expect(statement.name?.startsWith(`${label}_`)).toBe(true);
    const nodes = await genericPlan(statement);
    // The walk is an index scan, or a bitmap index scan feeding a heap scan (on a small table).
    const walks = nodes.filter((node) => node['Index Name']?.startsWith('clarification_bundles_'));
    expect(walks.length).toBeGreaterThan(0);
    for (const walk of walks) expect(walk['Index Cond']).toMatch(/ROW\(created_at, pending_id\) > ROW\(/);
    for (const scan of nodes.filter((node) => node['Relation Name'] === 'clarification_bundles')) expect(scan.Filter ?? '').not.toMatch(/created_at|pending_id/);
  });
});
