import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { decodeCursor, encodeCursor } from '#common';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';

/**
 * One keyset-cursor codec for every list; every bad cursor — including impossible
 * instants that Date.parse rolls over and PostgreSQL rejects — is a 400 naming `cursor` on every
 * surface, never a 500; and a caller's visible workspaces reach SQL as one array parameter.
 */

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

const BAD_CURSORS: Array<[string, string]> = [
  ['an impossible day (Feb 30)', b64(['2025-02-30T10:00:00.000000Z', 'p'])],
  ['year 0000', b64(['0000-01-01T00:00:00.000000Z', 'p'])],
  ['hour 24', b64(['2025-01-01T24:00:00.000000Z', 'p'])],
  ['month 13', b64(['2025-13-01T00:00:00.000000Z', 'p'])],
  ['milliseconds only', b64(['2025-01-01T00:00:00.000Z', 'p'])],
  ['an empty id', b64(['2025-01-01T00:00:00.000000Z', ''])],
  ['an id with NUL', b64(['2025-01-01T00:00:00.000000Z', 'p\u0000q'])],
  ['a lone surrogate in the id', b64(['2025-01-01T00:00:00.000000Z', 'p\ud800'])],
  ['one key', b64(['2025-01-01T00:00:00.000000Z'])],
  ['an object', b64({ at: '2025-01-01T00:00:00.000000Z', id: 'p' })],
  ['not base64url', 'not a cursor!'],
  ['padding (not what the codec makes)', `${encodeCursor({ at: '2025-01-01T00:00:00.000000Z', id: 'p' })}=`],
  ['far too long', 'A'.repeat(5000)],
];

describe('the keyset-cursor codec', () => {
  it('round-trips what it makes and refuses everything else', () => {
    const position = { at: '2025-02-28T23:59:59.999999Z', id: 'pending-1' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    for (const [, cursor] of BAD_CURSORS) expect(decodeCursor(cursor)).toBeUndefined();
  });
});

describe('every list refuses a bad cursor with a 400 naming cursor, on every surface', () => {
  let t: TestApp;
  let mcp: McpConnection;
  let sessionId: string;

  beforeAll(async () => {
    t = await startApp();
    mcp = await connectMcp(t.baseUrl);
    sessionId = (await createRunningSession(t)).sessionId;
    await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: sessionId, questions: TWO_QUESTIONS }).expect(200);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  it.each(BAD_CURSORS)('%s', async (_name, cursor) => {
    const mcpError = await mcp.callError('list_pending_questions_kandev', { cursor });
    expect(mcpError).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/cursor/) });

    const graphql = await gql(t, `query ($after: String) { pendingQuestions(after: $after) { count } }`, { after: cursor });
    expect(graphql.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/cursor/), extensions: { code: 'VALIDATION_ERROR' } });

    for (const path of ['/api/v1/clarification', `/api/v1/sessions/${sessionId}/messages`]) {
      const res = await request(t.baseUrl).get(path).query({ cursor });
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body.error).toMatch(/cursor/);
    }
  });

  it.each(['2025-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '2025-04-31T12:00:00+02:00'])(
    'created_since %s (an impossible date) ⇒ a validation error naming created_since on every surface',
    async (createdSince) => {
      expect(await mcp.callError('list_pending_questions_kandev', { created_since: createdSince })).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/created_since/),
      });
      const graphql = await gql(t, `query ($since: String) { pendingQuestions(createdSince: $since) { count } }`, { since: createdSince });
      expect(graphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      const res = await request(t.baseUrl).get('/api/v1/clarification').query({ created_since: createdSince }).expect(400);
      expect(res.body.error).toMatch(/created_since/);
    },
  );
});

describe('a caller who sees more workspaces than a statement has bind parameters', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('70,000 visible workspaces: the pending list, the task list and the workspace list still answer', async () => {
    const user = await createUser(t, 'collector');
    const fixture = await createRunningSession(t, { bearer: user.token });
    await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${user.token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    await t.db.query(
      `INSERT INTO workspaces (id, name, owner_id) SELECT 'ws-many-' || n, 'many', $1 FROM generate_series(1, 70000) AS n`,
      [user.id],
    );
    const mcp = await connectMcp(t.baseUrl, { bearer: user.token });
    try {
      expect(JSON.parse((await mcp.call('list_pending_questions_kandev', {})).text).count).toBe(1);
    } finally {
      await mcp.close();
    }
    const auth = `Bearer ${user.token}`;
    expect((await request(t.baseUrl).get('/api/v1/clarification').set('authorization', auth).expect(200)).body.count).toBe(1);
    expect((await request(t.baseUrl).get('/api/v1/tasks').set('authorization', auth).expect(200)).body.tasks).toHaveLength(1);
    expect((await request(t.baseUrl).get(`/api/v1/tasks?workspace_id=${randomUUID()}`).set('authorization', auth).expect(200)).body.tasks).toEqual([]);
  });
});
