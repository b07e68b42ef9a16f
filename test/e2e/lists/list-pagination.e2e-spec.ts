/**
 * Pagination conventions: the task and workspace lists are keyset-paginated on every
 * surface — REST `GET /api/v1/tasks` and `/api/v1/workspaces`, GraphQL `taskConnection` and
 * `workspaceConnection`, MCP `list_tasks_kandev` — by (created_at, id) with the one cursor codec,
 * under the one page rule: `limit` absent ⇒ 50, an integer from 1 to 200 ⇒ itself, anything else a
 * validation error naming `limit` (never clamped); a cursor the server did not make is one naming
 * `cursor`. Walking the pages yields every visible row once, in order, and `next_cursor` is "" on the
 * last page. The GraphQL cost and the MCP page budget count the page size asked for.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { loadConfig } from '#config';
import { fetchDirectory } from '../../../apps/web/src/inbox/inbox.api.js';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { createUser } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { connectMcp, type McpConnection, sendBatch } from '../../support/mcp.js';

type Kind = 'tasks' | 'workspaces';

interface PageArgs {
  limit?: unknown;
  cursor?: string;
  workspace_id?: string;
}

interface Page {
  ids: string[];
  next_cursor: string;
}

type Outcome = { ok: true; page: Page } | { ok: false; message: string };

interface Surface {
  name: string;
  kinds: Kind[];
  list(kind: Kind, args: PageArgs, bearer: string): Promise<Outcome>;
}

const restSurface = (t: TestApp): Surface => ({
  name: 'REST',
  kinds: ['tasks', 'workspaces'],
  async list(kind, args, bearer) {
    const query: Record<string, string> = {};
    for (const [key, value] of Object.entries(args)) if (value !== undefined) query[key] = String(value);
    const res = await request(t.baseUrl).get(`/api/v1/${kind}`).query(query).set('authorization', `Bearer ${bearer}`);
    if (res.status !== 200) {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      return { ok: false, message: res.body.error as string };
    }
    // The key is always there: "" on the last page, never absent or null.
    expect(Object.keys(res.body as object).sort()).toEqual([kind, 'next_cursor'].sort());
    expect(typeof res.body.next_cursor).toBe('string');
    return { ok: true, page: { ids: (res.body[kind] as Array<{ id: string }>).map((row) => row.id), next_cursor: res.body.next_cursor as string } };
  },
});

const CONNECTION = {
  tasks: `query($workspaceId: String, $after: String, $first: Int) {
    taskConnection(workspaceId: $workspaceId, after: $after, first: $first) { nodes { id } count pageInfo { hasNextPage endCursor } } }`,
  workspaces: `query($after: String, $first: Int) {
    workspaceConnection(after: $after, first: $first) { nodes { id } count pageInfo { hasNextPage endCursor } } }`,
};

interface ConnectionData {
  nodes: Array<{ id: string }>;
  count: number;
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

const graphqlSurface = (t: TestApp): Surface => ({
  name: 'GraphQL',
  kinds: ['tasks', 'workspaces'],
  async list(kind, args, bearer) {
    const variables: Record<string, unknown> = {};
    if (args.limit !== undefined) variables.first = args.limit;
    if (args.cursor !== undefined) variables.after = args.cursor;
    if (args.workspace_id !== undefined) variables.workspaceId = args.workspace_id;
    const result = await gql<Record<string, ConnectionData>>(t, CONNECTION[kind], variables, bearer);
    const field = kind === 'tasks' ? 'taskConnection' : 'workspaceConnection';
    const error = result.body.errors?.[0];
    if (error) {
      expect(error.extensions?.code).toBe('VALIDATION_ERROR');
      return { ok: false, message: error.message };
    }
    const connection = result.body.data?.[field] as ConnectionData;
    expect(connection.count).toBe(connection.nodes.length);
    expect(connection.pageInfo.hasNextPage).toBe(connection.pageInfo.endCursor !== '');
    return { ok: true, page: { ids: connection.nodes.map((node) => node.id), next_cursor: connection.pageInfo.endCursor } };
  },
});

function mcpSurface(t: TestApp): Surface & { close(): Promise<void> } {
  const connections = new Map<string, Promise<McpConnection>>();
  const connection = (bearer: string) => {
    if (!connections.has(bearer)) connections.set(bearer, connectMcp(t.baseUrl, { bearer }));
    return connections.get(bearer) as Promise<McpConnection>;
  };
  return {
    name: 'MCP',
    // There is no workspace tool on /mcp (spec S1–S3 name the external tools).
    kinds: ['tasks'],
    async list(_kind, args, bearer) {
      const outcome = await (await connection(bearer)).call('list_tasks_kandev', { ...args });
      if (outcome.isError) {
        const error = JSON.parse(outcome.text) as { code: string; message: string };
        expect(error.code).toBe('VALIDATION_ERROR');
        return { ok: false, message: error.message };
      }
      const raw = JSON.parse(outcome.text) as { tasks: Array<{ id: string }>; next_cursor: string };
      expect(Object.keys(raw).sort()).toEqual(['next_cursor', 'tasks']);
      expect(outcome.structured).toEqual(raw);
      return { ok: true, page: { ids: raw.tasks.map((task) => task.id), next_cursor: raw.next_cursor } };
    },
    async close() {
      for (const pending of connections.values()) await (await pending).close();
    },
  };
}

/** Every page from the first to the one whose next_cursor is "", none larger than `limit`. */
async function walk(surface: Surface, kind: Kind, bearer: string, limit: number | undefined, filter: PageArgs = {}): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const outcome = await surface.list(kind, { ...filter, ...(limit === undefined ? {} : { limit }), ...(cursor ? { cursor } : {}) }, bearer);
    if (!outcome.ok) throw new Error(`${surface.name} ${kind}: ${outcome.message}`);
    expect(outcome.page.ids.length).toBeLessThanOrEqual(limit ?? 50);
    pages.push(outcome.page.ids);
    cursor = outcome.page.next_cursor;
    if (pages.length > 100) throw new Error('the walk does not end');
  } while (cursor !== '');
  return pages;
}

interface Seeded {
  id: string;
  at: string;
  visibleTo: Array<'alice' | 'bob'>;
  workspace: string;
}

/** (created_at, id) order; the instants share one fixed format, so text order is time order. */
const ordered = (rows: Seeded[]): string[] =>
  [...rows].sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1)).map((row) => row.id);

/** Instants with ties (three rows per instant) and microsecond steps, so the id tiebreak and precision both count. */
const instant = (index: number): string => `2026-03-01T10:00:00.${String(100000 + Math.floor(index / 3) * 7).padStart(6, '0')}Z`;

describe('task and workspace lists: one page rule, one cursor codec, every surface', () => {
  let t: TestApp;
  let mcp: ReturnType<typeof mcpSurface>;
  let surfaces: Surface[];
  const bearers: Record<'alice' | 'bob' | 'admin', string> = { alice: '', bob: '', admin: TEST_ADMIN_TOKEN };
  const workspaces: Seeded[] = [];
  const tasks: Seeded[] = [];

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    const alice = await createUser(t, 'alice');
    const bob = await createUser(t, 'bob');
    bearers.alice = alice.token;
    bearers.bob = bob.token;
    // Owned by alice, by bob, or by nobody (visible to everyone), interleaved in time.
    const owners = [alice.id, bob.id, alice.id, '', bob.id, alice.id, alice.id, bob.id, '', alice.id, bob.id];
    owners.forEach((owner, index) => {
      const visibleTo: Array<'alice' | 'bob'> = owner === '' ? ['alice', 'bob'] : owner === alice.id ? ['alice'] : ['bob'];
      workspaces.push({ id: `ws-${String(10 - index).padStart(2, '0')}`, at: instant(index), visibleTo, workspace: '' });
    });
    for (const workspace of workspaces) {
      const owner = owners[workspaces.indexOf(workspace)];
      await t.db.query('INSERT INTO workspaces (id, name, owner_id, created_at) VALUES ($1, $2, $3, $4)', [workspace.id, workspace.id, owner, workspace.at]);
    }
    // Tasks in every workspace, in none (''), and in one that does not exist (visible to everyone).
    const homes = [...workspaces.map((workspace) => workspace.id), '', 'ws-dangling'];
    for (let index = 0; index < 56; index += 1) {
      const home = homes[(index * 5) % homes.length] ?? '';
      const workspace = workspaces.find((candidate) => candidate.id === home);
      const visibleTo = workspace ? workspace.visibleTo : (['alice', 'bob'] as Array<'alice' | 'bob'>);
      const task: Seeded = { id: `task-${String(99 - index).padStart(2, '0')}`, at: instant(index), visibleTo, workspace: home };
      tasks.push(task);
      await t.db.query(`INSERT INTO tasks (id, workspace_id, title, state, created_at) VALUES ($1, $2, $3, 'OPEN', $4)`, [task.id, home, task.id, task.at]);
    }
    mcp = mcpSurface(t);
    surfaces = [restSurface(t), graphqlSurface(t), mcp];
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  const expected = (rows: Seeded[], caller: 'alice' | 'bob' | 'admin') =>
    ordered(caller === 'admin' ? rows : rows.filter((row) => row.visibleTo.includes(caller)));

  it('walking pages yields every visible row once, in (created_at, id) order, on every surface and for every caller', async () => {
    for (const surface of surfaces) {
      for (const kind of surface.kinds) {
        const rows = kind === 'tasks' ? tasks : workspaces;
        for (const caller of ['alice', 'bob', 'admin'] as const) {
          for (const limit of [1, 4, 200]) {
            const pages = await walk(surface, kind, bearers[caller], limit);
            const want = expected(rows, caller);
            expect({ surface: surface.name, kind, caller, limit, ids: pages.flat() }).toEqual({ surface: surface.name, kind, caller, limit, ids: want });
            // Every page but the last is full; the last holds the rest (never an empty page after a full one, except at 0 rows).
            expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
            expect(pages).toHaveLength(Math.max(1, Math.ceil(want.length / limit)));
          }
        }
      }
    }
    // The two callers see disjoint owned rows and share the unowned ones.
    const alice = expected(tasks, 'alice');
    const bob = expected(tasks, 'bob');
    expect(alice.length + bob.length).toBeGreaterThan(tasks.length);
    expect(alice.length).toBeLessThan(tasks.length);
    expect(bob.length).toBeLessThan(tasks.length);
  });

  it('the default page is 50: 56 tasks are two pages for the admin, one full page first', async () => {
    for (const surface of surfaces) {
      const pages = await walk(surface, 'tasks', bearers.admin, undefined);
      expect(pages.map((page) => page.length)).toEqual([50, 6]);
      expect(pages.flat()).toEqual(expected(tasks, 'admin'));
    }
  });

  it('the workspace filter stays, and pages the same way; a foreign workspace is an empty page', async () => {
    const aliceWorkspace = workspaces.find((workspace) => workspace.visibleTo.length === 1 && workspace.visibleTo[0] === 'alice') as Seeded;
    const inIt = ordered(tasks.filter((task) => task.workspace === aliceWorkspace.id));
    expect(inIt.length).toBeGreaterThan(2);
    for (const surface of surfaces) {
      expect((await walk(surface, 'tasks', bearers.alice, 2, { workspace_id: aliceWorkspace.id })).flat()).toEqual(inIt);
      expect(await walk(surface, 'tasks', bearers.bob, 2, { workspace_id: aliceWorkspace.id })).toEqual([[]]);
    }
  });

  it('a cursor is the same on every surface: a page started on one continues on another', async () => {
    const [rest, graphql, mcpList] = surfaces as [Surface, Surface, Surface];
    const first = await rest.list('tasks', { limit: 5 }, bearers.admin);
    if (!first.ok) throw new Error(first.message);
    const viaGraphql = await graphql.list('tasks', { limit: 5, cursor: first.page.next_cursor }, bearers.admin);
    const viaMcp = await mcpList.list('tasks', { limit: 5, cursor: first.page.next_cursor }, bearers.admin);
    expect(viaGraphql).toEqual(viaMcp);
    expect(viaGraphql.ok && viaGraphql.page.ids).toEqual(expected(tasks, 'admin').slice(5, 10));
  });

  const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  const LIMIT_REFUSED = 'limit must be an integer from 1 to 200';
  const CURSOR_REFUSED = 'cursor is invalid';

  it.each([
    ['above the maximum', 201, LIMIT_REFUSED],
    ['far above the maximum', 1_000_000, LIMIT_REFUSED],
    ['zero', 0, LIMIT_REFUSED],
    ['negative', -1, LIMIT_REFUSED],
  ])('a limit %s is refused naming `limit` on every surface, never clamped', async (_label, limit, message) => {
    for (const surface of surfaces) {
      for (const kind of surface.kinds) {
        expect({ surface: surface.name, kind, outcome: await surface.list(kind, { limit }, bearers.alice) }).toEqual({
          surface: surface.name,
          kind,
          outcome: { ok: false, message },
        });
      }
    }
  });

  it('a fractional or non-numeric limit is refused naming `limit` on every surface', async () => {
    const [rest, graphql, mcpList] = surfaces as [Surface, Surface, Surface];
    for (const kind of ['tasks', 'workspaces'] as const) {
      expect(await rest.list(kind, { limit: 1.5 }, bearers.alice)).toEqual({ ok: false, message: 'limit must be an integer number' });
      expect(await rest.list(kind, { limit: 'ten' }, bearers.alice)).toEqual({ ok: false, message: 'limit must be an integer number' });
    }
    expect(await mcpList.list('tasks', { limit: 1.5 }, bearers.alice)).toEqual({ ok: false, message: LIMIT_REFUSED });
    expect(await mcpList.list('tasks', { limit: 'ten' }, bearers.alice)).toEqual({ ok: false, message: expect.stringMatching(/^limit must be a number/) });
    // GraphQL's Int refuses a fraction before the resolver runs; the error names the variable and the type.
    const fractional = await gql(t, CONNECTION.tasks, { first: 1.5 }, bearers.alice);
    expect({ status: fractional.status, data: fractional.body.data ?? null, errors: fractional.body.errors }).toEqual({
      status: 400,
      data: null,
      errors: [expect.objectContaining({ message: expect.stringMatching(/\$first.*Int cannot represent non-integer value: 1\.5/), extensions: { code: 'VALIDATION_ERROR' } })],
    });
    expect(await graphql.list('workspaces', { limit: 1.5 }, bearers.alice)).toEqual({ ok: false, message: expect.stringMatching(/Int cannot represent/) });
  });

  it.each([
    ['not base64url', 'not a cursor!'],
    ['base64url of something else', cursorOf({ at: '2026-03-01T10:00:00.000000Z', id: 'x' })],
    ['an impossible date', cursorOf(['2026-02-30T10:00:00.000000Z', 'task-1'])],
    ['without microseconds', cursorOf(['2026-03-01T10:00:00Z', 'task-1'])],
    ['an empty id', cursorOf(['2026-03-01T10:00:00.000000Z', ''])],
    ['a re-encoded cursor (padding)', `${cursorOf(['2026-03-01T10:00:00.000000Z', 'task-1'])}=`],
  ])('a cursor %s is refused naming `cursor` on every surface', async (_label, cursor) => {
    for (const surface of surfaces) {
      for (const kind of surface.kinds) {
        expect({ surface: surface.name, kind, outcome: await surface.list(kind, { cursor }, bearers.alice) }).toEqual({
          surface: surface.name,
          kind,
          outcome: { ok: false, message: CURSOR_REFUSED },
        });
      }
    }
  });

  it('the list-typed GraphQL queries kept for existing clients return the first page, under the same rule', async () => {
    const result = await gql<{ tasks: Array<{ id: string }>; workspaces: Array<{ id: string }> }>(t, '{ tasks { id } workspaces { id } }', undefined, bearers.admin);
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data?.tasks.map((task) => task.id)).toEqual(expected(tasks, 'admin').slice(0, 50));
    expect(result.body.data?.workspaces.map((workspace) => workspace.id)).toEqual(expected(workspaces, 'admin'));
    const refused = await gql(t, '{ tasks(first: 201) { id } }', undefined, bearers.admin);
    expect(refused.body.errors?.[0]).toMatchObject({ message: LIMIT_REFUSED, extensions: { code: 'VALIDATION_ERROR' } });
  });
});

describe('the other paged lists follow the same page rule: delivery log and audit trail (default 50, 1–200)', () => {
  let t: TestApp;
  const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a webhook delivery log: limit 200 is served, 201, 0 and a foreign cursor are 400s naming the field, on REST and GraphQL', async () => {
    const workspace = await request(t.baseUrl).post('/api/v1/workspaces').set(admin).send({ name: 'hooks' }).expect(201);
    const hook = await request(t.baseUrl)
      .post(`/api/v1/workspaces/${workspace.body.id as string}/webhooks`)
      .set(admin)
      .send({ url: 'https://hooks.example.com/parley', events: ['asked'] })
      .expect(201);
    const path = `/api/v1/webhooks/${hook.body.id as string}/deliveries`;
    await request(t.baseUrl).get(path).query({ limit: 200 }).set(admin).expect(200, { deliveries: [], next_cursor: '' });
    for (const [query, error] of [
      [{ limit: 201 }, 'limit must be an integer from 1 to 200'],
      [{ limit: 0 }, 'limit must be an integer from 1 to 200'],
      [{ cursor: 'not-ours' }, 'cursor is invalid'],
    ] as const) {
      await request(t.baseUrl).get(path).query(query).set(admin).expect(400, { error, code: 'VALIDATION_ERROR' });
    }
    const graphql = await gql(t, `{ webhookDeliveries(webhookId: "${hook.body.id as string}", first: 201) { pageInfo { endCursor } } }`, undefined, TEST_ADMIN_TOKEN);
    expect(graphql.body.errors?.[0]).toMatchObject({ message: 'limit must be an integer from 1 to 200', extensions: { code: 'VALIDATION_ERROR' } });
  });

  it('an audit trail: limit 201 and 0 are 400s naming `limit` before the bundle is looked up', async () => {
    for (const limit of [201, 0]) {
      await request(t.baseUrl)
        .get('/api/v1/clarification/no-such-bundle/audit')
        .query({ limit })
        .set(admin)
        .expect(400, { error: 'limit must be an integer from 1 to 200', code: 'VALIDATION_ERROR' });
    }
    await request(t.baseUrl).get('/api/v1/clarification/no-such-bundle/audit').query({ limit: 200 }).set(admin).expect(404);
  });
});

const listTasksCall = (id: number, args: Record<string, unknown>): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'list_tasks_kandev', arguments: args },
});

describe('budgets count the page size asked for (GRAPHQL_MAX_COST 1000, MCP_MAX_PAGE_BUDGET 120)', () => {
  let t: TestApp;
  beforeAll(async () => {
    const defaults = loadConfig({});
    t = await startApp({ config: { graphql: { ...defaults.graphql, maxCost: 1000 }, mcp: { ...defaults.mcp, maxPageBudget: 120 } } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('GraphQL: a task or workspace page costs its `first` (50 when absent)', async () => {
    // Three aliases of first × (1 + nodes (1 + id)) = 3 × 200 × 3 for a connection, 3 × 200 × (1 + id) for a list.
    for (const field of ['taskConnection', 'workspaceConnection', 'tasks', 'workspaces']) {
      const selection = field.endsWith('Connection') ? 'nodes { id }' : 'id';
      const cost = (first: number | undefined) => `{ ${['a', 'b', 'c'].map((alias) => `${alias}: ${field}${first ? `(first: ${first})` : ''} { ${selection} }`).join(' ')} }`;
      const big = await gql(t, cost(200));
      expect({ field, status: big.status, message: big.body.errors?.[0]?.message }).toEqual({
        field,
        status: 400,
        message: expect.stringMatching(field.endsWith('Connection') ? /estimated cost is 1800, above the budget of 1000/ : /estimated cost is 1200, above the budget of 1000/),
      });
      const small = await gql(t, cost(undefined));
      expect({ field, errors: small.body.errors }).toEqual({ field, errors: undefined });
    }
  });

  it('MCP: a list_tasks_kandev call counts its limit (50 when absent) against the page budget', async () => {
    const over = await sendBatch(t, [listTasksCall(1, { limit: 100 }), listTasksCall(2, {})]);
    expect(over.error?.code).toBe(400);
    expect(over.error?.message).toMatch(/may return 150 rows, above the page budget of 120 per request \(MCP_MAX_PAGE_BUDGET\)/);
    const within = await sendBatch(t, [listTasksCall(1, { limit: 70 }), listTasksCall(2, {})]);
    expect(within.error).toBeUndefined();
    expect(within.responses).toHaveLength(2);
    // A limit the tool refuses returns no row, so it spends none of the budget: the tool names `limit`.
    const refused = await sendBatch(t, [listTasksCall(1, { limit: 500 })]);
    expect(refused.error).toBeUndefined();
    expect(JSON.stringify(refused.responses[0])).toContain('limit must be an integer from 1 to 200');
  });
});

describe("the browser inbox's directory reads every page of both connections", () => {
  let t: TestApp;
  const realFetch = globalThis.fetch;
  beforeAll(async () => {
    t = await startApp();
    // More than one page of 200 of each, and a different number of pages for the two lists.
    await t.db.query(`INSERT INTO workspaces (id, name) SELECT 'ws-' || n, 'workspace ' || n FROM generate_series(1, 230) AS n`);
    await t.db.query(`INSERT INTO tasks (id, workspace_id, title, state) SELECT 'task-' || n, 'ws-' || (n % 230 + 1), 'task ' || n, 'OPEN' FROM generate_series(1, 450) AS n`);
    // The page's requests are same-origin paths: send them to the test server.
    globalThis.fetch = (input, init) => realFetch(new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, t.baseUrl), init);
  });
  afterAll(async () => {
    globalThis.fetch = realFetch;
    await t.close();
  });

  it('lists all 230 workspaces and 450 tasks, oldest first', async () => {
    const directory = await fetchDirectory();
    const stored = async (table: string) => (await t.db.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY created_at, id`)).rows.map((row) => row.id);
    expect(directory.workspaces.map((workspace) => workspace.id)).toEqual(await stored('workspaces'));
    expect(directory.tasks.map((task) => task.id)).toEqual(await stored('tasks'));
    expect(directory.tasks[0]).toEqual({ id: expect.any(String), title: expect.any(String), workspaceId: expect.any(String) });
  });
});
