import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import canonicalize from 'canonicalize';
import { createLocalJWKSet, decodeJwt, errors, generateKeyPair, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import request from 'supertest';
import { Parley, verifyReceipt } from '@parley/client';
import { ReceiptService } from '#receipts';
import { startApp, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gqlData } from '../../support/graphql.js';
import { connectMcp } from '../../support/mcp.js';
import { askRouted, ONE_QUESTION, PICK, respondAs, team } from '../../support/routing.js';

/**
 * Receipts from the outside (docs/receipts.md): an ask carries an action; the resolution's receipt
 * is a compact JWS that `jose` verifies against the published JWKS — with no code of the service —
 * and that POST /api/v1/receipts/verify judges: changed arguments are action_mismatch, reordered
 * keys still verify, a tampered payload is bad_signature, an expired one expired.
 */

const ACTION = { name: 'deploy', arguments: { env: 'prod', replicas: 3, flags: { canary: true, region: 'eu' } } };
/** The same action with every key in another order and other whitespace. */
const REORDERED = JSON.parse('{ "arguments": { "flags": { "region": "eu", "canary": true }, "replicas": 3, "env": "prod" }, "name": "deploy" }') as typeof ACTION;
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

/** The digest an executor computes itself: SHA-256 over the RFC 8785 canonical JSON (the `canonicalize` package, not the service's code). */
function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalize(value) as string, 'utf8').digest('hex');
}

describe('receipts: actions on asks, signed receipts, verification', () => {
  let t: TestApp;
  let token: string;
  let userId: string;
  const auth = (req: request.Test) => req.set('authorization', `Bearer ${token}`);

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    ({ token, id: userId } = await createUser(t, 'approver'));
  });
  afterAll(() => t.close());

  async function ask(body: Record<string, unknown> = {}): Promise<{ pendingId: string; sessionId: string; agentToken: string; taskId: string; workspaceId: string }> {
    const fixture = await createRunningSession(t, { bearer: token });
    const asked = await auth(request(t.baseUrl).post('/api/v1/clarification/request')).send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS, ...body });
    expect(asked.status).toBe(200);
    return { pendingId: asked.body.pending_id as string, ...fixture };
  }

  async function jwks(): Promise<JSONWebKeySet> {
    const res = await fetch(`${t.baseUrl}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    return (await res.json()) as JSONWebKeySet;
  }

  function verify(body: Record<string, unknown>): request.Test {
    return request(t.baseUrl).post('/api/v1/receipts/verify').send(body);
  }

  it('the JWKS is public, cacheable and holds only public Ed25519 keys', async () => {
    const res = await fetch(`${t.baseUrl}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const set = (await res.json()) as JSONWebKeySet;
    expect(set.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of set.keys) {
      expect(key).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: expect.any(String), alg: 'EdDSA', use: 'sig' });
      expect(key).not.toHaveProperty('d');
    }
  });

  it('an ask keeps its action: GET, the list, GraphQL and the MCP list carry action and action_digest', async () => {
    const { pendingId } = await ask({ action: ACTION });
    const bundle = await auth(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(200);
    expect(bundle.body.action).toEqual(ACTION);
    expect(bundle.body.action_digest).toBe(digestOf({ name: ACTION.name, arguments: ACTION.arguments }));
    expect(bundle.body.action_digest).toBe(digestOf(REORDERED));
    // No resolution yet: no receipt (GET carries one once final).
    expect(bundle.body).not.toHaveProperty('receipt');

    const list = await auth(request(t.baseUrl).get('/api/v1/clarification?limit=100')).expect(200);
    const listed = (list.body.bundles as Array<Record<string, unknown>>).find((entry) => entry.pending_id === pendingId);
    expect(listed).toMatchObject({ action: ACTION, action_digest: bundle.body.action_digest });

    const data = await gqlData<{ question: { action: { name: string; arguments: string }; actionDigest: string; receipt: string | null } }>(
      t,
      'query($id: String!) { question(pendingId: $id) { action { name arguments } actionDigest receipt } }',
      { id: pendingId },
      token,
    );
    expect(data.question.action.name).toBe('deploy');
    expect(JSON.parse(data.question.action.arguments)).toEqual(ACTION.arguments);
    expect(data.question.actionDigest).toBe(bundle.body.action_digest);
    expect(data.question.receipt).toBeNull();

    const mcp = await connectMcp(t.baseUrl, { bearer: token });
    try {
      const page = await mcp.call('list_pending_questions_kandev', { limit: 100 });
      const entry = (page.structured?.bundles as Array<Record<string, unknown>>).find((candidate) => candidate.pending_id === pendingId);
      expect(entry).toMatchObject({ action: ACTION, action_digest: bundle.body.action_digest });
    } finally {
      await mcp.close();
    }

    const plain = await ask();
    const unbound = await auth(request(t.baseUrl).get(`/api/v1/clarification/${plain.pendingId}`)).expect(200);
    // Asked without an action: it reads exactly as before.
    expect(unbound.body).not.toHaveProperty('action');
    expect(unbound.body).not.toHaveProperty('action_digest');
  });

  it('the winner gets a receipt that jose verifies against the published JWKS, with every claim', async () => {
    const { pendingId, sessionId, taskId, workspaceId } = await ask({ action: ACTION });
    const won = await auth(request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`)).send({ answers: ANSWERS }).expect(200);
    expect(won.body.claimed).toBe(true);
    const receipt = won.body.receipt as string;
    expect(receipt.split('.')).toHaveLength(3);

    const { payload, protectedHeader } = await jwtVerify(receipt, createLocalJWKSet(await jwks()), { issuer: 'parley', subject: pendingId });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'parley-receipt+jwt', kid: expect.any(String) });
    expect(payload).toEqual({
      iss: 'parley',
      sub: pendingId,
      jti: expect.any(String),
      iat: expect.any(Number),
      exp: (payload.iat as number) + 3600,
      outcome: 'answered',
      answers_digest: digestOf({ answers: ANSWERS, rejected: false }),
      action_digest: digestOf(REORDERED),
      selections: { db: ['pg'], q2: ['q2_opt1'] },
      asked_by: { kind: 'user', id: userId },
      answered_by: { kind: 'user', id: userId },
      surface: 'rest',
      session_id: sessionId,
      task_id: taskId,
      workspace_id: workspaceId,
    });

    // The same receipt on every read: GET, /wait, a late loser, GraphQL, the event a webhook carries.
    const read = await auth(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(200);
    expect(read.body.receipt).toBe(receipt);
    const waited = await auth(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/wait`)).expect(200);
    expect(waited.body.receipt).toBe(receipt);
    const late = await auth(request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`)).send({ rejected: true }).expect(200);
    expect(late.body).toMatchObject({ claimed: false, status: 'answered', receipt });
    const data = await gqlData<{ question: { receipt: string } }>(t, 'query($id: String!) { question(pendingId: $id) { receipt } }', { id: pendingId }, token);
    expect(data.question.receipt).toBe(receipt);
    const events = await t.db.query<{ payload: { receipt?: string } }>(`SELECT payload FROM question_events WHERE pending_id = $1 AND type = 'ANSWERED'`, [pendingId]);
    expect(events.rows.map((row) => row.payload.receipt)).toEqual([receipt]);
  });

  it('POST /api/v1/receipts/verify: valid, reordered keys valid, changed arguments action_mismatch, tampered bad_signature, junk malformed, a foreign key unknown_key', async () => {
    const { pendingId } = await ask({ action: ACTION });
    const { body } = await auth(request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`)).send({ answers: ANSWERS }).expect(200);
    const receipt = body.receipt as string;

    const valid = await verify({ receipt, action: ACTION }).expect(200);
    expect(valid.body).toEqual({ valid: true, claims: decodeJwt(receipt) });
    expect((await verify({ receipt }).expect(200)).body.valid).toBe(true);
    expect((await verify({ receipt, action: REORDERED }).expect(200)).body).toMatchObject({ valid: true });

    const changed = { ...ACTION, arguments: { ...ACTION.arguments, env: 'staging' } };
    expect((await verify({ receipt, action: changed }).expect(200)).body).toEqual({ valid: false, reason: 'action_mismatch' });
    expect((await verify({ receipt, action: { ...ACTION, name: 'destroy' } }).expect(200)).body).toEqual({ valid: false, reason: 'action_mismatch' });

    const [header, payload, signature] = receipt.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, outcome: 'rejected' })).toString('base64url');
    expect((await verify({ receipt: `${header}.${forged}.${signature}` }).expect(200)).body).toEqual({ valid: false, reason: 'bad_signature' });
    await expect(jwtVerify(`${header}.${forged}.${signature}`, createLocalJWKSet(await jwks()))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);

    for (const junk of ['not-a-jws', 'a.b.c', `${header}.${payload}`]) {
      expect((await verify({ receipt: junk }).expect(200)).body).toEqual({ valid: false, reason: 'malformed' });
    }
    const stranger = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const foreign = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', kid: 'not-ours', typ: 'parley-receipt+jwt' }).sign(stranger.privateKey);
    expect((await verify({ receipt: foreign }).expect(200)).body).toEqual({ valid: false, reason: 'unknown_key' });

    // A bad request is a 400 naming the field.
    expect((await verify({}).expect(400)).body.error).toMatch(/receipt/);
    expect((await verify({ receipt, action: { name: 'deploy' } }).expect(400)).body.error).toMatch(/action\.arguments/);
  });

  it('an expired receipt is expired (for the route and for jose)', async () => {
    const { pendingId, sessionId, taskId } = await ask();
    const stale = await t.app.get(ReceiptService).issue(
      {
        pendingId,
        outcome: 'answered',
        resolution: { answers: ANSWERS, rejected: false },
        actionDigest: null,
        askedBy: { kind: 'user', id: userId },
        answeredBy: { kind: 'user', id: userId },
        surface: 'rest',
        sessionId,
        taskId,
        workspaceId: '',
      },
      new Date(Date.now() - 2 * 3600 * 1000),
    );
    expect((await verify({ receipt: stale }).expect(200)).body).toEqual({ valid: false, reason: 'expired' });
    await expect(jwtVerify(stale, createLocalJWKSet(await jwks()))).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  it('a rejection and an ask without an action get a receipt too (no action_digest); given an action it is action_mismatch', async () => {
    const { pendingId } = await ask();
    const rejected = await auth(request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`)).send({ rejected: true, reject_reason: 'no' }).expect(200);
    const claims = decodeJwt(rejected.body.receipt as string);
    expect(claims).toMatchObject({ outcome: 'rejected', answers_digest: digestOf({ answers: [], rejected: true }) });
    expect(claims).not.toHaveProperty('action_digest');
    expect((await verify({ receipt: rejected.body.receipt, action: ACTION }).expect(200)).body).toEqual({ valid: false, reason: 'action_mismatch' });
  });

  it('bad actions are a 400 naming the field, and nothing is asked', async () => {
    const fixture = await createRunningSession(t, { bearer: token });
    const cases: Array<[unknown, RegExp]> = [
      ['deploy', /action must be an object/],
      [['deploy'], /action must be an object/],
      [{ name: 'x'.repeat(201), arguments: {} }, /action\.name must be at most 200 characters/],
      [{ name: '', arguments: {} }, /action\.name/],
      [{ name: 'deploy', arguments: [1, 2] }, /action\.arguments must be a JSON object/],
      [{ name: 'deploy', arguments: 'env=prod' }, /action\.arguments must be a JSON object/],
      [{ name: 'deploy', arguments: { blob: 'x'.repeat(64 * 1024) } }, /action\.arguments must be at most 65536 bytes/],
      [{ name: 'deploy', arguments: {}, extra: 1 }, /action\.extra/],
    ];
    for (const [action, message] of cases) {
      const res = await auth(request(t.baseUrl).post('/api/v1/clarification/request')).send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS, action });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    const rows = await t.db.query(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1 AND type = 'clarification_request'`, [fixture.sessionId]);
    expect(rows.rowCount).toBe(0);
    const session = await t.db.query<{ state: string }>(`SELECT state FROM task_sessions WHERE id = $1`, [fixture.sessionId]);
    expect(session.rows[0].state).toBe('RUNNING');

    // The in-session MCP ask refuses the same way, naming the field.
    const agent = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
    try {
      const refused = await agent.callError('ask_user_question_kandev', { questions: TWO_QUESTIONS, action: { name: 'x'.repeat(201), arguments: {} } });
      expect(refused.message).toMatch(/action\.name must be at most 200 characters/);
    } finally {
      await agent.close();
    }
    expect((await t.db.query(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1`, [fixture.sessionId])).rowCount).toBe(0);
  });

  it('an action JSON parsers could read differently, or whose name reorders text, is a 400 naming the field on REST and MCP; nothing is asked', async () => {
    const fixture = await createRunningSession(t, { bearer: token });
    const raw = (path: string, bearer: string, body: string) =>
      request(t.baseUrl).post(path).set('authorization', `Bearer ${bearer}`).set('content-type', 'application/json').set('accept', 'application/json, text/event-stream').send(body);
    const restBody = (action: string) => `{"session_id":${JSON.stringify(fixture.sessionId)},"questions":${JSON.stringify(TWO_QUESTIONS)},"action":${action}}`;
    const mcpBody = (action: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_user_question_kandev","arguments":{"questions":${JSON.stringify(TWO_QUESTIONS)},"action":${action}}}}`;
    const twice = (path: string) => `${path} is given twice (a field name may appear once in an object)`;
    const inexact = (path: string) => `${path} is a number that does not read as written (out of range, or more digits than a 64-bit float holds)`;

    // Refused while the body is parsed (JSON.parse alone would keep the last "to", and read 9007199254740992 and Infinity).
    for (const [action, field] of [
      ['{"name":"pay","arguments":{"to":"alice","to":"mallory"}}', (root: string) => twice(`${root}.action.arguments.to`)],
      ['{"name":"pay","name":"refund","arguments":{}}', (root: string) => twice(`${root}.action.name`)],
      ['{"name":"pay","arguments":{"cents":9007199254740993}}', (root: string) => inexact(`${root}.action.arguments.cents`)],
      ['{"name":"pay","arguments":{"cents":[1e400]}}', (root: string) => inexact(`${root}.action.arguments.cents[0]`)],
    ] as const) {
      const rest = await raw('/api/v1/clarification/request', token, restBody(action));
      expect({ status: rest.status, body: rest.body as unknown }).toEqual({ status: 400, body: { error: field('body'), code: 'VALIDATION_ERROR' } });
      const mcp = await raw('/mcp/session', fixture.agentToken, mcpBody(action));
      expect({ status: mcp.status, message: (mcp.body as { error?: { message?: string } }).error?.message }).toEqual({ status: 400, message: field('body.params.arguments') });
    }

    // Refused by the action's own rules: an integer beyond ±(2^53−1) (exact as a double, not as every parser's integer), a bidi control in the name.
    const agent = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
    try {
      for (const [action, message] of [
        [{ name: 'pay', arguments: { cents: 2 ** 53 } }, 'action.arguments.cents must be an integer from -9007199254740991 to 9007199254740991'],
        [{ name: 'pay', arguments: { refs: [-(2 ** 60)] } }, 'action.arguments.refs[0] must be an integer from -9007199254740991 to 9007199254740991'],
        [{ name: 'refund\u202Eexe.pdf', arguments: {} }, 'action.name must not contain the bidirectional control character U+202E'],
        [{ name: '\u2066deploy\u2069', arguments: {} }, 'action.name must not contain the bidirectional control character U+2066'],
      ] as const) {
        const rest = await auth(request(t.baseUrl).post('/api/v1/clarification/request')).send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS, action });
        expect({ status: rest.status, body: rest.body as unknown }).toEqual({ status: 400, body: { error: message, code: 'VALIDATION_ERROR' } });
        const refused = await agent.callError('ask_user_question_kandev', { questions: TWO_QUESTIONS, action });
        expect({ code: refused.code, message: refused.message }).toEqual({ code: 'VALIDATION_ERROR', message });
      }
    } finally {
      await agent.close();
    }
    expect((await t.db.query(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1`, [fixture.sessionId])).rowCount).toBe(0);

    // The largest exact integers and any finite double that reads as written are accepted, and kept as sent.
    const exact = { name: 'pay', arguments: { max: 9007199254740991, min: -9007199254740991, ratio: 0.1, tiny: 5e-324 } };
    const { pendingId } = await ask({ action: exact });
    expect((await auth(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(200)).body.action).toEqual(exact);
  });

  it('the in-session MCP ask takes an action; its result and the agent get the receipt', async () => {
    const fixture = await createRunningSession(t, { bearer: token });
    const agent = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
    try {
      const asking = agent.client.callTool({ name: 'ask_user_question_kandev', arguments: { questions: TWO_QUESTIONS, action: REORDERED } }, undefined, { timeout: 30_000 });
      const pendingId = await eventually(async () => {
        const rows = await t.db.query<{ pending_id: string }>(`SELECT pending_id FROM clarification_bundles WHERE session_id = $1 AND active`, [fixture.sessionId]);
        return rows.rows[0]?.pending_id;
      });
      const read = await auth(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(200);
      expect(read.body.action_digest).toBe(digestOf(ACTION));
      const won = await auth(request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`)).send({ answers: ANSWERS }).expect(200);
      const result = await asking;
      expect(result.isError).not.toBe(true);
      expect(result._meta).toEqual({ receipt: won.body.receipt });
      expect((await verify({ receipt: won.body.receipt, action: ACTION }).expect(200)).body.valid).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('the resume hand-off carries the receipt', async () => {
    const received: Array<Record<string, unknown>> = [];
    const hook = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      const fixture = await createRunningSession(t, { bearer: token, resumeUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/resume` });
      const asked = await auth(request(t.baseUrl).post('/api/v1/clarification/request')).send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS, action: ACTION }).expect(200);
      const won = await auth(request(t.baseUrl).post(`/api/v1/clarification/${asked.body.pending_id}/respond`)).send({ answers: ANSWERS }).expect(200);
      expect(received).toHaveLength(1);
      expect(received[0].receipt).toBe(won.body.receipt);
      expect((received[0].response as { receipt?: string }).receipt).toBe(won.body.receipt);
    } finally {
      await new Promise((resolve) => hook.close(resolve));
    }
  });

  it('the typed client asks with an action and verifies the receipt offline against the JWKS', async () => {
    const fixture = await createRunningSession(t, { bearer: token });
    const parley = new Parley({ url: t.baseUrl, token });
    const bundle = await parley.ask({ sessionId: fixture.sessionId, questions: TWO_QUESTIONS, action: ACTION });
    const resolution = await parley.respond(bundle.pendingId, ANSWERS);
    expect(resolution.claimed).toBe(true);
    const receipt = resolution.receipt as string;
    expect((await parley.get(bundle.pendingId)).receipt).toBe(receipt);

    await expect(parley.verifyReceipt(receipt, { action: REORDERED })).resolves.toMatchObject({ valid: true, claims: { sub: bundle.pendingId } });
    const offline = await verifyReceipt(receipt, { jwks: await jwks(), issuer: 'parley', action: ACTION });
    expect(offline).toMatchObject({ valid: true, claims: { outcome: 'answered', answers_digest: digestOf({ answers: ANSWERS, rejected: false }) } });
    expect(await verifyReceipt(receipt, { jwks: await jwks(), action: { ...ACTION, arguments: { ...ACTION.arguments, replicas: 4 } } })).toEqual({
      valid: false,
      reason: 'action_mismatch',
    });
    const [header, payload, signature] = receipt.split('.');
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(receipt), surface: 'web' })).toString('base64url');
    expect(await verifyReceipt(`${header}.${forged}.${signature}`, { jwks: await jwks() })).toEqual({ valid: false, reason: 'bad_signature' });
    expect(await verifyReceipt(`${header}.${payload}`, { jwks: await jwks() })).toEqual({ valid: false, reason: 'malformed' });
    expect(await verifyReceipt(receipt, { jwks: { keys: [] } })).toEqual({ valid: false, reason: 'unknown_key' });
    expect(await verifyReceipt(receipt, { jwks: await jwks(), currentDate: new Date(Date.now() + 2 * 3600 * 1000) })).toEqual({ valid: false, reason: 'expired' });
  });

  it('the connector listing carries the action of a decision asked with one', async () => {
    const { pendingId } = await ask({ action: ACTION });
    const listed = await auth(request(t.baseUrl).get('/api/v1/pending-interactions')).expect(200);
    const item = (listed.body.pending_interactions as Array<Record<string, unknown>>).find((entry) => entry.pending_id === pendingId);
    expect(item).toMatchObject({ action: ACTION, action_digest: digestOf(ACTION) });
  });

  it('a quorum bundle gets its receipt on the deciding vote, not before', async () => {
    const crew = await team(t, 2, 'quorum');
    const asked = await askRouted(t, crew, ONE_QUESTION, { answerers: { user_ids: crew.members.map((member) => member.id) }, required_answers: 2 }, { action: ACTION }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const first = await respondAs(t, crew.members[0].token, pendingId, { answers: PICK('sqlite') }).expect(200);
    expect(first.body).toMatchObject({ claimed: false, status: 'pending', receipt: null });
    const second = await respondAs(t, crew.members[1].token, pendingId, { answers: PICK('sqlite') }).expect(200);
    expect(second.body).toMatchObject({ claimed: true, status: 'answered', receipt: expect.any(String) });
    const verdict = await verify({ receipt: second.body.receipt, action: ACTION }).expect(200);
    expect(verdict.body).toMatchObject({ valid: true, claims: { sub: pendingId, answered_by: { kind: 'user', id: crew.members[1].id } } });
  });

  it('a cancelled bundle has no receipt', async () => {
    const { pendingId } = await ask({ action: ACTION });
    await auth(request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/cancel`)).expect(200);
    const read = await auth(request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`)).expect(200);
    expect(read.body).toMatchObject({ status: 'cancelled' });
    expect(read.body).not.toHaveProperty('receipt');
    const stored = await t.db.query(`SELECT 1 FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND metadata ? 'receipt'`, [pendingId]);
    expect(stored.rowCount).toBe(0);
  });

  it('verification is public (no credential) and rate-limited per address', async () => {
    const res = await request(t.baseUrl).post('/api/v1/receipts/verify').send({ receipt: 'x.y.z' }).expect(200);
    expect(res.headers['ratelimit-policy']).toMatch(/verifications/);
  });
});

describe('receipts: verification budget', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', rateLimitStore: 'memory', rateLimits: { ...(await import('#config')).loadConfig({}).rateLimits, verifications: 3 } } });
  });
  afterAll(() => t.close());

  it('the fourth verification in a window from one address is a 429', async () => {
    for (let i = 0; i < 3; i += 1) await request(t.baseUrl).post('/api/v1/receipts/verify').send({ receipt: 'x.y.z' }).expect(200);
    const refused = await request(t.baseUrl).post('/api/v1/receipts/verify').send({ receipt: 'x.y.z' });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
  });
});
