/**
 * The list rules the three list surfaces share (L1–L16, D1–D7): every scenario is arranged
 * once and then run against `list_pending_questions_kandev` (MCP SDK client on /mcp), the GraphQL
 * `pendingQuestions` connection and REST `GET /api/v1/clarification`. Each surface must
 * meet the rule, and all three must agree exactly: the same pending ids in the same order, the same
 * bundles, the same cursors (interchangeable between the surfaces) and the same validation outcomes.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { at, insertBulkBundles, insertBundle, insertSession, insertTurn, syncBundleIndex } from '../../support/bundles.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { gql } from '../../support/graphql.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';
import { createUser } from '../../support/fixtures.js';
import { captureStatements } from '../../support/statements.js';

interface ListArgs {
  workspace_id?: string;
  created_since?: string;
  cursor?: string;
  limit?: number;
}

/** A page in one shape for every surface (age_seconds left out: it moves with the clock). */
interface Page {
  ids: string[];
  count: number;
  next_cursor: string;
  bundles: unknown[];
}

type Outcome = { ok: true; page: Page } | { ok: false; message: string };

interface ListSurface {
  name: 'mcp' | 'graphql' | 'rest';
  list(args: ListArgs, bearer?: string): Promise<Outcome>;
}

const PENDING = `query($workspaceId: String, $createdSince: String, $after: String, $first: Int) {
  pendingQuestions(workspaceId: $workspaceId, createdSince: $createdSince, after: $after, first: $first) {
    nodes { pendingId taskId sessionId createdAt context
      questions { questionId title prompt status options { optionId label description } } }
    count pageInfo { hasNextPage endCursor } } }`;

function mcpSurface(t: TestApp): ListSurface & { close(): Promise<void> } {
  const connections = new Map<string, Promise<McpConnection>>();
  const connection = (bearer: string | undefined) => {
    const key = bearer ?? '';
    if (!connections.has(key)) connections.set(key, connectMcp(t.baseUrl, bearer ? { bearer } : {}));
    return connections.get(key) as Promise<McpConnection>;
  };
  return {
    name: 'mcp',
    async list(args, bearer) {
      const outcome = await (await connection(bearer)).call('list_pending_questions_kandev', { ...args });
      if (outcome.isError) {
        const error = JSON.parse(outcome.text) as { code: string; message: string };
        expect(error.code).toBe('VALIDATION_ERROR');
        return { ok: false, message: error.message };
      }
      const raw = JSON.parse(outcome.text) as { bundles: Array<Record<string, unknown>>; count: number; next_cursor: string };
      return {
        ok: true,
        page: {
          ids: raw.bundles.map((bundle) => bundle.pending_id as string),
          count: raw.count,
          next_cursor: raw.next_cursor,
          bundles: raw.bundles.map((bundle) => {
            const questions = bundle.questions as Array<Record<string, unknown>>;
            return {
              pending_id: bundle.pending_id,
              task_id: bundle.task_id,
              session_id: bundle.session_id,
              created_at: bundle.created_at,
              context: bundle.context,
              questions: questions.map((question) => ({
                question_id: question.question_id,
                title: question.title,
                prompt: question.prompt,
                status: question.status,
                options: question.options,
              })),
            };
          }),
        },
      };
    },
    async close() {
      await Promise.all([...connections.values()].map(async (pending) => (await pending).close()));
    },
  };
}

function graphqlSurface(t: TestApp): ListSurface {
  return {
    name: 'graphql',
    async list(args, bearer) {
      const variables = {
        ...(args.workspace_id !== undefined ? { workspaceId: args.workspace_id } : {}),
        ...(args.created_since !== undefined ? { createdSince: args.created_since } : {}),
        ...(args.cursor !== undefined ? { after: args.cursor } : {}),
        ...(args.limit !== undefined ? { first: args.limit } : {}),
      };
      const result = await gql<{
        pendingQuestions: {
          nodes: Array<Record<string, unknown>>;
          count: number;
          pageInfo: { hasNextPage: boolean; endCursor: string };
        };
      }>(t, PENDING, variables, bearer);
      expect(result.status).toBe(200);
      if (result.body.errors) {
        expect(result.body.errors).toHaveLength(1);
        expect(result.body.errors[0]?.extensions?.code).toBe('VALIDATION_ERROR');
        expect(result.body.data ?? null).toBeNull();
        return { ok: false, message: result.body.errors[0]?.message ?? '' };
      }
      const connection = result.body.data?.pendingQuestions;
      if (!connection) throw new Error('no data');
      // hasNextPage and endCursor are one fact: a cursor exactly when there is more.
      expect(connection.pageInfo.hasNextPage).toBe(connection.pageInfo.endCursor !== '');
      return {
        ok: true,
        page: {
          ids: connection.nodes.map((node) => node.pendingId as string),
          count: connection.count,
          next_cursor: connection.pageInfo.endCursor,
          bundles: connection.nodes.map((node) => ({
            pending_id: node.pendingId,
            task_id: node.taskId,
            session_id: node.sessionId,
            created_at: node.createdAt,
            context: node.context,
            questions: (node.questions as Array<Record<string, unknown>>).map((question) => ({
              question_id: question.questionId,
              title: question.title,
              prompt: question.prompt,
              status: question.status,
              options: (question.options as Array<Record<string, string>>).map((option) => ({
                option_id: option.optionId,
                label: option.label,
                description: option.description,
              })),
            })),
          })),
        },
      };
    },
  };
}

/** GET /api/v1/clarification: the list for simple clients, its arguments as the query string. */
function restSurface(t: TestApp): ListSurface {
  return {
    name: 'rest',
    async list(args, bearer) {
      let req = request(t.baseUrl).get('/api/v1/clarification').query({ ...args });
      if (bearer) req = req.set('authorization', `Bearer ${bearer}`);
      const res = await req;
      if (res.status === 400) {
        expect(Object.keys(res.body as object)).toEqual(['error', 'code']);
        return { ok: false, message: (res.body as { error: string }).error };
      }
      expect(res.status).toBe(200);
      const raw = res.body as { bundles: Array<Record<string, unknown>>; count: number; next_cursor: string };
      expect(Object.keys(raw).sort()).toEqual(['bundles', 'count', 'next_cursor']);
      return {
        ok: true,
        page: {
          ids: raw.bundles.map((bundle) => bundle.pending_id as string),
          count: raw.count,
          next_cursor: raw.next_cursor,
          bundles: raw.bundles.map(({ age_seconds: _age, ...bundle }) => ({
            ...bundle,
            questions: (bundle.questions as Array<Record<string, unknown>>).map((question) => ({ ...question })),
          })),
        },
      };
    },
  };
}

/** A fresh app (the list is global, so every scenario owns its database) with the three surfaces. */
async function fresh(authMode: 'enabled' | 'disabled' = 'disabled') {
  const t = await startApp({ config: { authMode } });
  const mcp = mcpSurface(t);
  const surfaces: ListSurface[] = [mcp, graphqlSurface(t), restSurface(t)];
  return {
    t,
    surfaces,
    /** Runs `args` on every surface; each must succeed with the same page, which is returned. */
    async page(args: ListArgs, bearer?: string): Promise<Page> {
      const outcomes = await Promise.all(surfaces.map((surface) => surface.list(args, bearer)));
      const [fromMcp, ...others] = outcomes;
      if (!outcomes.every((outcome) => outcome.ok) || !fromMcp?.ok) throw new Error(`list failed: ${JSON.stringify(outcomes)}`);
      for (const other of others) expect(other).toEqual(fromMcp);
      expect(fromMcp.page.count).toBe(fromMcp.page.ids.length);
      return fromMcp.page;
    },
    /** Runs `args` on every surface; each must refuse it with the same message. */
    async refused(args: ListArgs, bearer?: string): Promise<string> {
      const outcomes = await Promise.all(surfaces.map((surface) => surface.list(args, bearer)));
      const [fromMcp, ...others] = outcomes;
      if (outcomes.some((outcome) => outcome.ok) || fromMcp?.ok !== false) throw new Error(`expected a validation error: ${JSON.stringify(outcomes)}`);
      for (const other of others) expect(other).toEqual(fromMcp);
      return fromMcp.message;
    },
    /** Every page from the first, on one surface, following its own cursors. */
    async walk(surface: ListSurface, limit: number, extra: ListArgs = {}, bearer?: string): Promise<Page[]> {
      const pages: Page[] = [];
      let cursor = '';
      for (let guard = 0; guard < 100; guard += 1) {
        const outcome = await surface.list({ ...extra, limit, ...(cursor ? { cursor } : {}) }, bearer);
        if (!outcome.ok) throw new Error(`walk failed on ${surface.name}: ${outcome.message}`);
        pages.push(outcome.page);
        if (!outcome.page.next_cursor) return pages;
        cursor = outcome.page.next_cursor;
      }
      throw new Error('pagination did not end');
    },
    async done() {
      await mcp.close();
      await t.close();
    },
  };
}

async function insertWorkspace(t: TestApp, ownerId: string): Promise<string> {
  const id = `ws-${randomUUID()}`;
  await t.db.query(`INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $2, $3)`, [id, `workspace ${id}`, ownerId]);
  return id;
}

/** A RUNNING session (task in `workspaceId`) with one turn and one two-question bundle created at `createdAt`. */
async function bundleAt(t: TestApp, createdAt: Date, options: { workspaceId?: string; pendingId?: string } = {}): Promise<string> {
  const session = await insertSession(t.db, { workspaceId: options.workspaceId ?? '' });
  const turnId = await insertTurn(t.db, { ...session, startedAt: at(-1000) });
  const bundle = await insertBundle(t.db, { ...session, turnId, createdAt, ...(options.pendingId ? { pendingId: options.pendingId } : {}) });
  return bundle.pendingId;
}

// ---------------------------------------------------------------------------------------------

describe('list parity: list_pending_questions_kandev, pendingQuestions and GET /api/v1/clarification obey the same rules', () => {
  it('L1a: limit counts visible bundles across two workspaces, even behind older foreign bundles; cursors are interchangeable', async () => {
    const s = await fresh('enabled');
    try {
      const alice = await createUser(s.t, 'alice');
      const bob = await createUser(s.t, 'bob');
      const ws1 = await insertWorkspace(s.t, alice.id);
      const ws2 = await insertWorkspace(s.t, alice.id);
      const wsBob = await insertWorkspace(s.t, bob.id);
      for (let i = 0; i < 10; i += 1) await bundleAt(s.t, at(i), { workspaceId: wsBob });
      const mine: string[] = [];
      for (let i = 0; i < 5; i += 1) mine.push(await bundleAt(s.t, at(100 + i), { workspaceId: i % 2 === 0 ? ws1 : ws2 }));
      await bundleAt(s.t, at(102.5), { workspaceId: wsBob });

      const first = await s.page({ limit: 3 }, alice.token);
      expect(first.ids).toEqual(mine.slice(0, 3));
      expect(first.next_cursor).not.toBe('');
      const second = await s.page({ limit: 3, cursor: first.next_cursor }, alice.token);
      expect(second.ids).toEqual(mine.slice(3));
      expect(second.next_cursor).toBe('');
      const exact = await s.page({ limit: 5 }, alice.token);
      expect(exact.ids).toEqual(mine);
      expect(exact.next_cursor).toBe('');
      expect((await s.page({ limit: 200 }, TEST_ADMIN_TOKEN)).count).toBe(16);
      expect((await s.page({}, bob.token)).count).toBe(11);

      // A cursor issued by any surface continues the walk on every other.
      for (const issuer of s.surfaces) {
        const first = await issuer.list({ limit: 2 }, alice.token);
        if (!first.ok) throw new Error(`list failed on ${issuer.name}`);
        for (const follower of s.surfaces.filter((surface) => surface !== issuer)) {
          const crossed = await follower.list({ limit: 2, cursor: first.page.next_cursor }, alice.token);
          expect([issuer.name, follower.name, crossed.ok && crossed.page.ids]).toEqual([issuer.name, follower.name, mine.slice(2, 4)]);
        }
      }
    } finally {
      await s.done();
    }
  });

  it('L6: oldest first, pending_id breaking ties — the same order and the same pages on every surface', async () => {
    const s = await fresh();
    try {
      const tieB = await bundleAt(s.t, at(20), { pendingId: 'pending-b' });
      const tieA = await bundleAt(s.t, at(20), { pendingId: 'pending-a' });
      const late = await bundleAt(s.t, at(30), { pendingId: 'pending-0-late' });
      const early = await bundleAt(s.t, at(10), { pendingId: 'pending-z-early' });
      const tieC = await bundleAt(s.t, at(20), { pendingId: 'pending-c' });
      const expected = [early, tieA, tieB, tieC, late];
      expect((await s.page({})).ids).toEqual(expected);
      for (const surface of s.surfaces) {
        expect((await s.walk(surface, 1)).flatMap((walked) => walked.ids)).toEqual(expected);
        expect((await s.walk(surface, 2)).map((walked) => walked.ids)).toEqual([[early, tieA], [tieB, tieC], [late]]);
      }
    } finally {
      await s.done();
    }
  });

  // the list order and the cursor agree with the D1 created_at each bundle reports.
  it('L6/D1/L12: a mixed legacy bundle is positioned by its D1 created_at, the time it reports — identically on every surface', async () => {
    const s = await fresh();
    try {
      const early = await bundleAt(s.t, at(10), { pendingId: 'pending-early' });
      const middle = await bundleAt(s.t, at(20), { pendingId: 'pending-middle' });
      // Its oldest row was answered at at(15); its still-pending row is from at(35).
      const session = await insertSession(s.t.db);
      const turnId = await insertTurn(s.t.db, { ...session, startedAt: at(-1000) });
      const mixed = await insertBundle(s.t.db, { ...session, turnId, createdAt: at(15), pendingId: 'pending-mixed', questions: [{ status: 'answered' }, {}] });
      await s.t.db.query(`UPDATE task_session_messages SET created_at = $2 WHERE id = $1`, [mixed.rowIds[1], at(35)]);
      await syncBundleIndex(s.t.db);
      const late = await bundleAt(s.t, at(30), { pendingId: 'pending-late' });

      const page = await s.page({});
      expect((page.bundles as Array<{ pending_id: string; created_at: string }>).map((bundle) => [bundle.pending_id, bundle.created_at])).toEqual([
        [early, at(10).toISOString()],
        [mixed.pendingId, at(15).toISOString()],
        [middle, at(20).toISOString()],
        [late, at(30).toISOString()],
      ]);
      // Paging stays total and identical: no gap, no duplicate, the same cursors.
      const [mcp, graphql, rest] = s.surfaces as [ListSurface, ListSurface, ListSurface];
      const walked = await s.walk(mcp, 1);
      expect(await s.walk(graphql, 1)).toEqual(walked);
      expect(await s.walk(rest, 1)).toEqual(walked);
      expect(walked.flatMap((one) => one.ids)).toEqual([early, mixed.pendingId, middle, late]);
    } finally {
      await s.done();
    }
  });

  it('L7/L7a: workspace filter ANDed with visibility; a foreign or unknown workspace is an empty page; "" is unfiltered; a dangling id lists its tasks', async () => {
    const s = await fresh('enabled');
    try {
      const gina = await createUser(s.t, 'gina');
      const hank = await createUser(s.t, 'hank');
      const ws1 = await insertWorkspace(s.t, gina.id);
      const ws2 = await insertWorkspace(s.t, gina.id);
      const wsHank = await insertWorkspace(s.t, hank.id);
      const in1 = await bundleAt(s.t, at(1), { workspaceId: ws1 });
      const in2 = await bundleAt(s.t, at(2), { workspaceId: ws2 });
      const inEmpty = await bundleAt(s.t, at(3), { workspaceId: '' });
      const ghost = `ws-fabricated-${randomUUID()}`;
      const inGhost = await bundleAt(s.t, at(4), { workspaceId: ghost });
      const inHank = await bundleAt(s.t, at(5), { workspaceId: wsHank });
      const empty = { ids: [], count: 0, next_cursor: '', bundles: [] };

      expect((await s.page({ workspace_id: ws1 }, gina.token)).ids).toEqual([in1]);
      expect((await s.page({ workspace_id: ws2 }, gina.token)).ids).toEqual([in2]);
      expect(await s.page({ workspace_id: wsHank }, gina.token)).toEqual(empty);
      expect((await s.page({ workspace_id: wsHank }, TEST_ADMIN_TOKEN)).ids).toEqual([inHank]);
      expect(await s.page({ workspace_id: `ws-nobody-${randomUUID()}` }, gina.token)).toEqual(empty);
      expect((await s.page({ workspace_id: ghost }, gina.token)).ids).toEqual([inGhost]);
      const all = [in1, in2, inEmpty, inGhost];
      expect((await s.page({ workspace_id: '' }, gina.token)).ids).toEqual(all);
      expect((await s.page({}, gina.token)).ids).toEqual(all);
    } finally {
      await s.done();
    }
  });

  it('L8/L14: created_since is inclusive and offset-aware; with a cursor both constraints apply', async () => {
    const s = await fresh();
    try {
      const times = [10, 20, 20, 30, 40, 40, 50];
      const seeded: string[] = [];
      for (const [index, seconds] of times.entries()) seeded.push(await bundleAt(s.t, at(seconds), { pendingId: `pending-${index}` }));

      expect((await s.page({ created_since: at(20).toISOString() })).ids).toEqual(seeded.slice(1));
      const shifted = new Date(at(20).getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      expect((await s.page({ created_since: shifted })).ids).toEqual(seeded.slice(1));
      expect((await s.page({ created_since: new Date(at(20).getTime() + 1).toISOString() })).ids).toEqual(seeded.slice(3));
      expect((await s.page({ created_since: at(51).toISOString() })).ids).toEqual([]);
      expect((await s.page({ created_since: '' })).count).toBe(7);

      const sinceThirty = { created_since: at(30).toISOString() };
      const firstFiltered = await s.page({ ...sinceThirty, limit: 2 });
      expect(firstFiltered.ids).toEqual(seeded.slice(3, 5));
      expect((await s.page({ ...sinceThirty, limit: 2, cursor: firstFiltered.next_cursor })).ids).toEqual(seeded.slice(5));
      const afterFirst = (await s.page({ limit: 2 })).next_cursor;
      expect((await s.page({ cursor: afterFirst, created_since: at(40).toISOString() })).ids).toEqual(seeded.slice(4));
      const afterSixth = (await s.page({ limit: 6 })).next_cursor;
      expect((await s.page({ cursor: afterSixth, created_since: at(10).toISOString() })).ids).toEqual(seeded.slice(6));
    } finally {
      await s.done();
    }
  });

  it('L9/D6: a cursor walk is exclusive, gap-free and identical on every surface; a bundle resolved between pages vanishes without shifting others', async () => {
    const s = await fresh();
    try {
      const times = [10, 20, 20, 30, 40, 40, 50];
      const seeded: string[] = [];
      for (const [index, seconds] of times.entries()) seeded.push(await bundleAt(s.t, at(seconds), { pendingId: `pending-${index}` }));
      const [mcp, graphql, rest] = s.surfaces as [ListSurface, ListSurface, ListSurface];
      const mcpWalk = await s.walk(mcp, 2);
      const graphqlWalk = await s.walk(graphql, 2);
      expect(graphqlWalk).toEqual(mcpWalk);
      expect(await s.walk(rest, 2)).toEqual(mcpWalk);
      expect(mcpWalk.map((page) => page.count)).toEqual([2, 2, 2, 1]);
      expect(mcpWalk.map((page) => page.next_cursor !== '')).toEqual([true, true, true, false]);
      expect(mcpWalk.flatMap((page) => page.ids)).toEqual(seeded);

      // Resolve the next page's first bundle and an already-returned one between pages.
      for (const pendingId of [seeded[2], seeded[1]]) {
        const res = await request(s.t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ rejected: true });
        expect(res.status).toBe(200);
      }
      const page2 = await s.page({ limit: 2, cursor: mcpWalk[0]?.next_cursor });
      expect(page2.ids).toEqual([seeded[3], seeded[4]]);
      const page3 = await s.page({ limit: 2, cursor: page2.next_cursor });
      expect(page3.ids).toEqual([seeded[5], seeded[6]]);
      expect(page3.next_cursor).toBe('');
      // D6: a bundle created before an issued cursor is not returned to it; a fresh call returns it.
      const backdated = await bundleAt(s.t, at(5));
      expect((await s.page({ limit: 2, cursor: mcpWalk[0]?.next_cursor })).ids).not.toContain(backdated);
      expect((await s.page({ limit: 2 })).ids[0]).toBe(backdated);
    } finally {
      await s.done();
    }
  });

  it('L10: limit/first defaults to 50, is capped at 200, and below 1 means the default', async () => {
    const s = await fresh();
    try {
      const session = await insertSession(s.t.db);
      const turnId = await insertTurn(s.t.db, { ...session, startedAt: at(-1000) });
      await insertBulkBundles(s.t.db, { sessionId: session.sessionId, taskId: session.taskId, turnId: turnId }, 205, at(0));
      const expectPage = async (args: ListArgs, count: number, more: boolean) => {
        const page = await s.page(args);
        expect([page.count, page.next_cursor !== '']).toEqual([count, more]);
        return page;
      };
      await expectPage({}, 50, true);
      await expectPage({ limit: 0 }, 50, true);
      await expectPage({ limit: -7 }, 50, true);
      await expectPage({ limit: 1 }, 1, true);
      await expectPage({ limit: 200 }, 200, true);
      const capped = await expectPage({ limit: 1000 }, 200, true);
      const rest = await expectPage({ limit: 1000, cursor: capped.next_cursor }, 5, false);
      expect(rest.ids).toEqual(['bulk-201', 'bulk-202', 'bulk-203', 'bulk-204', 'bulk-205']);
    } finally {
      await s.done();
    }
  });

  it('L13: a corrupt cursor or an unparseable created_since is refused by every surface, with the same message naming the argument', async () => {
    const s = await fresh();
    try {
      await bundleAt(s.t, at(1));
      await bundleAt(s.t, at(2));
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
      for (const cursor of ['not a cursor!', '%%%', 'AAAA', b64(['x', 'y']), b64(['2026-01-01T00:00:00.000000Z']), b64(['2026-13-45T99:00:00.000000Z', 'p'])]) {
        expect(await s.refused({ cursor })).toMatch(/cursor/);
      }
      for (const createdSince of ['yesterday', '2026-13-01T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00', '1700000000']) {
        expect(await s.refused({ created_since: createdSince })).toMatch(/created_since/);
      }
      // A valid cursor with an invalid created_since is still refused (neither is silently dropped).
      const cursor = (await s.page({ limit: 1 })).next_cursor;
      expect(cursor).not.toBe('');
      expect(await s.refused({ cursor, created_since: 'soon' })).toMatch(/created_since/);
    } finally {
      await s.done();
    }
  });

  it('L1a, L16: the merged per-key walks re-check only their page; a page with a row that fails the re-check is taken again, full and in order', async () => {
    const s = await fresh('enabled');
    const statements = captureStatements(s.t);
    try {
      const alice = await createUser(s.t, 'alice');
      const ws = await insertWorkspace(s.t, alice.id);
      const mine: string[] = [];
      for (let i = 0; i < 7; i += 1) mine.push(await bundleAt(s.t, at(200 + i), { workspaceId: ws }));
      /** A page on every surface, and how many per-key walk statements the three sent. */
      const page = async (args: ListArgs) => {
        const { result, pool } = await statements.during(() => s.page(args, alice.token));
        return { ids: result.ids, next_cursor: result.next_cursor, walks: pool.filter((text) => text.includes('unnest(CAST($7 AS text[]))')).length };
      };

      const first = await page({ limit: 3 });
      expect(first).toEqual({ ids: mine.slice(0, 3), next_cursor: expect.any(String), walks: 3 });

      // The index row of mine[0] says active while the rule says answered: the index is out of step.
      await s.t.db.query(`UPDATE task_session_messages SET metadata = jsonb_set(metadata, '{status}', '"answered"') WHERE metadata->>'pending_id' = $1`, [mine[0]]);
      const indexed = await s.t.db.query<{ active: boolean }>(`SELECT active FROM clarification_bundles WHERE pending_id = $1`, [mine[0]]);
      expect(indexed.rows).toEqual([{ active: true }]);
      const drifted = await page({ limit: 3 });
      expect(drifted.ids).toEqual(mine.slice(1, 4));
      expect(drifted.next_cursor).not.toBe('');
      expect(drifted.walks).toBe(6);
      for (const surface of s.surfaces) {
        expect((await s.walk(surface, 3, {}, alice.token)).flatMap((walked) => walked.ids)).toEqual(mine.slice(1));
      }

      // L16: a row of mine[2] loses its question_id, so that bundle is never listed.
      await s.t.db.query(
        `UPDATE task_session_messages SET metadata = metadata - 'question_id'
          WHERE id = (SELECT id FROM task_session_messages WHERE metadata->>'pending_id' = $1 ORDER BY id LIMIT 1)`,
        [mine[2]],
      );
      expect((await page({ limit: 3 })).ids).toEqual([mine[1], mine[3], mine[4]]);
    } finally {
      statements.restore();
      await s.done();
    }
  });
});

describe('GET /api/v1/clarification beside the :id routes', () => {
  it('lists without disturbing GET /:id or POST /request; a query field it does not know, or a limit that is not an integer, is a 400 naming it; no identity ⇒ 401', async () => {
    const t = await startApp({ config: { authMode: 'enabled' } });
    try {
      const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      const pendingId = await bundleAt(t, at(1));
      const listed = await request(t.baseUrl).get('/api/v1/clarification').set(admin).expect(200);
      expect((listed.body as { bundles: Array<{ pending_id: string }> }).bundles.map((bundle) => bundle.pending_id)).toEqual([pendingId]);
      const one = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set(admin);
      expect(one.status).not.toBe(405);
      expect(JSON.stringify(one.body)).not.toContain('"bundles"');
      await request(t.baseUrl).get('/api/v1/clarification/no-such-bundle').set(admin).expect(404);
      await request(t.baseUrl).post('/api/v1/clarification/request').set(admin).send({}).expect(400);

      const unknown = await request(t.baseUrl).get('/api/v1/clarification?page=2').set(admin).expect(400);
      expect(unknown.body).toEqual({ error: expect.stringMatching(/^page /), code: 'VALIDATION_ERROR' });
      for (const limit of ['ten', '2.5', '1e400']) {
        const bad = await request(t.baseUrl).get('/api/v1/clarification').query({ limit }).set(admin).expect(400);
        expect(bad.body).toEqual({ error: expect.stringMatching(/^limit /), code: 'VALIDATION_ERROR' });
      }
      // An empty value is an absent one, as for every other argument of the list.
      await request(t.baseUrl).get('/api/v1/clarification?limit=&cursor=&created_since=&workspace_id=').set(admin).expect(200);
      const anonymous = await request(t.baseUrl).get('/api/v1/clarification').expect(401);
      expect(JSON.stringify(anonymous.body)).not.toContain(pendingId);
    } finally {
      await t.close();
    }
  });
});
