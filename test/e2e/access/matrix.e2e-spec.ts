/**
 * The access matrix (docs/security.md, "The access matrix"): for every entry point — each REST route,
 * GraphQL field, MCP tool and connector command, discovered from the running app as the access
 * snapshot discovers them, so a new one without a row fails here — and every kind of caller, what
 * the caller gets, asserted by making the real request. The table below is the one in
 * docs/security.md, cell for cell (the last test holds the two together).
 *
 * The cast (AUTH_MODE=enabled). A workspace W, owned by `owner`, with a task T and a session S that
 * the owner opened; its bundles are asked by the owner and routed to `eligible`
 * (`routing: {answerers: {user_ids: [eligible]}}`):
 * - anonymous: no credential;
 * - admin: the ADMIN_TOKEN;
 * - owner: W's owner, who opened the session and asked its bundles;
 * - member: a member of W (routing does not name them);
 * - non-member: a user of no workspace here;
 * - eligible: a member of W whom the bundles' routing names;
 * - viewer: a non-eligible viewer: another member of W whom the routing does not name (a different
 *   person from `member` with the same standing, so every row also holds that the two agree);
 * - agent: the session's agent (its agent token);
 * - other agent: the agent of a running session in another workspace;
 * - ended agent: the agent token of a session of T that was completed;
 * - removed: a user added to W as a member, then removed;
 * - revoked: a second personal access token of the owner, revoked;
 * - expired: a browser session of the owner (its cookie, with a same-origin Origin) past its maximum
 *   age; on the long poll and the subscription, one that expires while they are open.
 *
 * A call that changes something gets its own arrangement per caller (a new session, bundle, task,
 * webhook or token), so each outcome is independent; read-only calls share one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { loadConfig } from '#config';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { answerRequest, decisionRefOf } from '../../support/decisions.js';
import { entryPointKeys } from '../../support/entry-points.js';
import { createRunningSession, createUser, signIn } from '../../support/fixtures.js';
import { gql, subscribe } from '../../support/graphql.js';
import { ADMIN, ONE_QUESTION, PICK, removeMember, team } from '../../support/routing.js';

const KINDS = ['anonymous', 'admin', 'owner', 'member', 'nonMember', 'eligible', 'viewer', 'agent', 'otherAgent', 'endedAgent', 'removed', 'revoked', 'expired'] as const;
type Kind = (typeof KINDS)[number];
/** The column headers of the table in docs/security.md, in KINDS order. */
const LABELS: Record<Kind, string> = {
  anonymous: 'anonymous',
  admin: 'admin',
  owner: 'owner',
  member: 'member',
  nonMember: 'non-member',
  eligible: 'eligible',
  viewer: 'viewer',
  agent: 'agent',
  otherAgent: 'other agent',
  endedAgent: 'ended agent',
  removed: 'removed',
  revoked: 'revoked',
  expired: 'expired',
};

/**
 * What a caller gets: `ok` (2xx, GraphQL data, an MCP tool result); on a list (and the
 * subscription) `ok` when the arrangement's item is in it and `hidden` when the answer is a 2xx
 * without it; otherwise the HTTP status — on GraphQL and MCP the status of the error code
 * (UNAUTHENTICATED 401, FORBIDDEN 403, NOT_FOUND 404, VALIDATION_ERROR 400, CONFLICT 409).
 */
type Outcome = string;

/** How long a browser session lives here (BROWSER_SESSION_MAX_AGE_MS and the idle timeout): the `expired` cookie is long past it. */
const BROWSER_SESSION_MS = 3_000;
/** How late after its end a held-open call may still see the browser session alive. */
const EXPIRY_SLACK_MS = 1_500;
/** How long a subscription is given to replay the event it would see. */
const REPLAY_MS = 3_000;
const ACTION = { name: 'deploy', arguments: { env: 'prod' } };
const WEBHOOK = { url: 'https://hooks.example/parley', events: ['expired'] };
/** A connector request id another user (outside the cast) already spent: request ids are per caller. */
const SPENT_REQUEST_ID = 'matrix-spent-request-id';

interface Person {
  id: string;
  token: string;
}

/** What a call acts on: the shared arrangement, or one made for the call. */
interface Fixture {
  workspaceId: string;
  taskId: string;
  sessionId: string;
  agentToken: string;
  turnId: string;
  /** A pending bundle of the session, routed to `eligible`. */
  pendingId: string;
  /** An answered bundle and its receipt (the shared arrangement; `answered()` makes one). */
  answeredId?: string;
  receipt?: string;
  decisionRef?: string;
  webhookId?: string;
  tokenId?: string;
}

interface Who {
  kind: Kind;
  headers: Record<string, string>;
  /** The bearer credential, when the caller has one. */
  token?: string;
}

interface World {
  owner: Person;
  member: Person;
  eligible: Person;
  viewer: Person;
  stranger: Person;
  removed: Person;
  /** A user to make tokens for. */
  spare: Person;
  revokedToken: string;
  expiredCookie: string;
  otherAgentToken: string;
  otherSessionId: string;
  endedAgentToken: string;
  shared: Fixture & { answeredId: string; receipt: string; webhookId: string; decisionRef: string; cursor: string };
}

let t: TestApp;
let w: World;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cookieHeaders = (cookie: string) => ({ cookie, origin: t.baseUrl });

function who(kind: Kind, fx: Fixture): Who {
  const withToken = (token: string): Who => ({ kind, headers: bearer(token), token });
  switch (kind) {
    case 'anonymous':
      return { kind, headers: {} };
    case 'admin':
      return withToken(TEST_ADMIN_TOKEN);
    case 'owner':
    case 'member':
    case 'eligible':
    case 'viewer':
    case 'removed':
      return withToken(w[kind].token);
    case 'nonMember':
      return withToken(w.stranger.token);
    case 'agent':
      return withToken(fx.agentToken);
    case 'otherAgent':
      return withToken(w.otherAgentToken);
    case 'endedAgent':
      return withToken(w.endedAgentToken);
    case 'revoked':
      return withToken(w.revokedToken);
    case 'expired':
      return { kind, headers: cookieHeaders(w.expiredCookie) };
  }
}

// ---------------------------------------------------------------------------------------------
// Making calls, and reading what came back
// ---------------------------------------------------------------------------------------------

interface HttpResult {
  status: number;
  text: string;
  body: unknown;
}

async function http(caller: Pick<Who, 'headers'>, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await fetch(`${t.baseUrl}${route}`, {
    method,
    headers: { ...caller.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed };
}

const statusOf = (res: { status: number }): Outcome => (res.status >= 200 && res.status < 300 ? 'ok' : String(res.status));
/** A list: `ok` when `id` is in it, `hidden` when it is a 2xx without it. */
const listed = (res: HttpResult, id: string): Outcome => (res.status >= 200 && res.status < 300 ? (res.text.includes(id) ? 'ok' : 'hidden') : String(res.status));

const rest = async (caller: Who, method: string, route: string, body?: unknown) => statusOf(await http(caller, method, route, body));
const restList = async (caller: Who, route: string, id: string) => listed(await http(caller, 'GET', route), id);

const ERROR_STATUS: Record<string, string> = {
  UNAUTHENTICATED: '401',
  FORBIDDEN: '403',
  NOT_ELIGIBLE: '403',
  NOT_FOUND: '404',
  VALIDATION_ERROR: '400',
  BAD_USER_INPUT: '400',
  CONFLICT: '409',
};
const codeStatus = (code: string | undefined) => (code === undefined ? 'error' : (ERROR_STATUS[code] ?? code));

async function graphql(caller: Who, query: string, variables: Record<string, unknown>, seen?: string): Promise<Outcome> {
  const res = await gql(t, query, variables, undefined, { headers: caller.headers });
  const error = res.body.errors?.[0];
  if (error) return codeStatus(error.extensions?.code);
  if (res.status < 200 || res.status >= 300 || !res.body.data) return String(res.status);
  return seen === undefined ? 'ok' : JSON.stringify(res.body.data).includes(seen) ? 'ok' : 'hidden';
}

/** One JSON-RPC request to an MCP endpoint, as one HTTP POST (the server is stateless: no initialize needed). */
async function mcp(caller: Who, endpoint: '/mcp' | '/mcp/session', method: string, params: Record<string, unknown>, seen?: string): Promise<Outcome> {
  const res = await fetch(`${t.baseUrl}${endpoint}`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  if (res.status < 200 || res.status >= 300) return String(res.status);
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (text.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '{}')
    : text;
  const message = JSON.parse(json) as { result?: { isError?: boolean; content?: Array<{ text?: string }> }; error?: { code: number; message: string } };
  if (message.error) return `jsonrpc ${message.error.code}`;
  if (message.result?.isError) {
    const content = message.result.content?.[0]?.text ?? '{}';
    return codeStatus((JSON.parse(content) as { code?: string }).code);
  }
  return seen === undefined ? 'ok' : json.includes(seen) ? 'ok' : 'hidden';
}

const tool = (caller: Who, name: string, args: Record<string, unknown>, seen?: string, endpoint: '/mcp' | '/mcp/session' = '/mcp') =>
  mcp(caller, endpoint, 'tools/call', { name, arguments: args }, seen);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Arrangements
// ---------------------------------------------------------------------------------------------

async function ok(res: request.Test | Promise<request.Response>, status = 200): Promise<request.Response> {
  const response = await res;
  if (response.status !== status) throw new Error(`arrangement failed: ${response.status} ${response.text}`);
  return response;
}

const asOwner = () => bearer(w.owner.token);

/** A new running session of T (or `taskId`) with an open turn and, asked by the owner, a pending bundle routed to `eligible`. */
async function fresh(taskId = w.shared.taskId): Promise<Fixture> {
  const session = await ok(request(t.baseUrl).post(`/api/v1/tasks/${taskId}/sessions`).set(asOwner()).send({}), 201);
  const sessionId = session.body.id as string;
  await ok(request(t.baseUrl).patch(`/api/v1/sessions/${sessionId}`).set(asOwner()).send({ state: 'RUNNING' }));
  const turn = await ok(request(t.baseUrl).post(`/api/v1/sessions/${sessionId}/turns`).set(asOwner()), 201);
  const asked = await ok(
    request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set(asOwner())
      .send({ session_id: sessionId, questions: ONE_QUESTION, routing: { answerers: { user_ids: [w.eligible.id] } }, action: ACTION }),
  );
  return {
    workspaceId: w.shared.workspaceId,
    taskId,
    sessionId,
    agentToken: session.body.agent_token as string,
    turnId: turn.body.id as string,
    pendingId: asked.body.pending_id as string,
  };
}

/** `fresh()`, its bundle answered by `eligible`, with its receipt. */
async function answered(): Promise<Fixture> {
  const fx = await fresh();
  await ok(request(t.baseUrl).post(`/api/v1/clarification/${fx.pendingId}/respond`).set(bearer(w.eligible.token)).send({ answers: PICK('postgres') }));
  const bundle = await ok(request(t.baseUrl).get(`/api/v1/clarification/${fx.pendingId}`).set(asOwner()));
  return { ...fx, answeredId: fx.pendingId, receipt: bundle.body.receipt as string };
}

/** `fresh()` with the decision_ref of its bundle (the connector's view of it). */
async function withDecision(): Promise<Fixture> {
  const fx = await fresh();
  return { ...fx, decisionRef: await decisionRefOf(t, fx.sessionId, w.owner.token) };
}

async function webhook(): Promise<string> {
  const created = await ok(request(t.baseUrl).post(`/api/v1/workspaces/${w.shared.workspaceId}/webhooks`).set(asOwner()).send(WEBHOOK), 201);
  return created.body.id as string;
}

/** The shared fixture with a webhook of W of its own. */
async function withWebhook(): Promise<Fixture> {
  return { ...w.shared, webhookId: await webhook() };
}

/** The shared fixture with a new task of W (so archiving it, or opening a session on it, touches nothing shared). */
async function withTask(): Promise<Fixture> {
  const task = await ok(request(t.baseUrl).post('/api/v1/tasks').set(asOwner()).send({ title: 'matrix task', workspace_id: w.shared.workspaceId }), 201);
  return { ...w.shared, taskId: task.body.id as string };
}

/** A new task of W with `fresh()`'s session and pending bundle in it. */
async function busyTask(): Promise<Fixture> {
  const task = await ok(request(t.baseUrl).post('/api/v1/tasks').set(asOwner()).send({ title: 'matrix task', workspace_id: w.shared.workspaceId }), 201);
  return fresh(task.body.id as string);
}

/** The shared fixture with a new token of the spare user. */
async function withToken(): Promise<Fixture> {
  const token = await ok(request(t.baseUrl).post(`/api/v1/admin/users/${w.spare.id}/tokens`).set('authorization', ADMIN).send({ name: 'spare' }), 201);
  return { ...w.shared, tokenId: token.body.id as string };
}

/** Webhooks a call created or left behind are deleted, so a workspace's cap is never reached. */
async function dropWebhooks(): Promise<void> {
  const listedHooks = await ok(request(t.baseUrl).get(`/api/v1/workspaces/${w.shared.workspaceId}/webhooks`).set('authorization', ADMIN));
  await Promise.all(
    (listedHooks.body.webhooks as Array<{ id: string }>)
      .filter((hook) => hook.id !== w.shared.webhookId)
      .map((hook) => ok(request(t.baseUrl).delete(`/api/v1/webhooks/${hook.id}`).set('authorization', ADMIN))),
  );
}

/**
 * The `expired` caller of a held-open call: a browser session of the owner that is live now and ends
 * while the call is open (BROWSER_SESSION_MS after signing in), with when it ends.
 */
async function expiring(): Promise<{ caller: Who; endsAt: number }> {
  const signedInAt = Date.now();
  const cookie = await signIn(t, w.owner.token);
  return { caller: { kind: 'expired', headers: cookieHeaders(cookie) }, endsAt: signedInAt + BROWSER_SESSION_MS };
}

/** Answers, as the admin, the session's first pending bundle other than `except` once there is one, until `done` settles. */
async function answerWhenAsked(sessionId: string, except: string, done: Promise<unknown>): Promise<void> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const deadline = Date.now() + 20_000;
  while (!finished && Date.now() < deadline) {
    const { rows } = await t.db.query<{ pending_id: string }>(
      `SELECT metadata->>'pending_id' AS pending_id FROM task_session_messages
        WHERE task_session_id = $1 AND type = 'clarification_request' AND metadata->>'status' = 'pending' AND metadata->>'pending_id' <> $2`,
      [sessionId, except],
    );
    if (rows[0]) {
      await request(t.baseUrl).post(`/api/v1/clarification/${rows[0].pending_id}/respond`).set('authorization', ADMIN).send({ answers: PICK('postgres') });
      return;
    }
    await sleep(50);
  }
}

// ---------------------------------------------------------------------------------------------
// The rows: an entry point, what each caller gets (in KINDS order), the call, and its arrangement
// ---------------------------------------------------------------------------------------------

type Call = (caller: Who, fx: Fixture) => Promise<Outcome>;

interface Row {
  key: string;
  expected: Record<Kind, Outcome>;
  call: Call;
  /** Made once per caller; the shared fixture when absent (the call changes nothing). */
  arrange?: () => Promise<Fixture>;
}

function row(key: string, outcomes: string, call: Call, arrange?: () => Promise<Fixture>): Row {
  const cells = outcomes.trim().split(/\s+/);
  if (cells.length !== KINDS.length) throw new Error(`${key}: ${cells.length} outcomes for ${KINDS.length} callers`);
  return { key, expected: Object.fromEntries(KINDS.map((kind, index) => [kind, cells[index]])) as Record<Kind, Outcome>, call, ...(arrange ? { arrange } : {}) };
}

const answerBody = { answers: PICK('postgres') };
const GQL_ANSWER = 'mutation($p: String!) { answerQuestion(pendingId: $p, answers: [{questionId: "db", selectedOptions: ["postgres"]}]) { status } }';

/**
 * The long poll on a new bundle, answered once it is open. For `expired` it is opened with a browser
 * session that is live then, and answered only once that session has ended: `401` is the poll ending
 * with it (one refused before the session's end reads `… at once`).
 */
const waitCall: Call = async (caller, fx) => {
  const heldOpen = caller.kind === 'expired' ? await expiring() : undefined;
  let settledAt = Number.POSITIVE_INFINITY;
  const waiting = http(heldOpen?.caller ?? caller, 'GET', `/api/v1/clarification/${fx.pendingId}/wait`).then((res) => {
    settledAt = Date.now();
    return res;
  });
  await Promise.race([waiting, sleep(heldOpen ? Math.max(0, heldOpen.endsAt - Date.now()) + EXPIRY_SLACK_MS : 300)]);
  await ok(request(t.baseUrl).post(`/api/v1/clarification/${fx.pendingId}/respond`).set(bearer(w.eligible.token)).send(answerBody));
  const outcome = statusOf(await waiting);
  return heldOpen && settledAt < heldOpen.endsAt - 250 ? `${outcome} at once` : outcome;
};

/**
 * The event subscription from just before the shared bundle was asked: `ok` when that bundle's
 * ASKED event arrives. For `expired` it is opened with a browser session that is live then (and
 * must deliver that event); `401` is the subscription ending once the session has ended.
 */
const subscriptionCall: Call = async (caller, fx) => {
  const heldOpen = caller.kind === 'expired' ? await expiring() : undefined;
  const subscription = subscribe<{ questionEvents: { pendingId: string } }>(t, 'subscription($after: String) { questionEvents(after: $after) { type pendingId } }', {
    variables: { after: w.shared.cursor },
    headers: (heldOpen?.caller ?? caller).headers,
  });
  try {
    const seen = () => subscription.events.some((event) => event.questionEvents.pendingId === fx.pendingId);
    const ended = () => subscription.error !== undefined || subscription.completed;
    const deadline = Date.now() + REPLAY_MS;
    while (!seen() && !ended() && Date.now() < deadline) await sleep(25);
    if (subscription.error !== undefined) return `${subscriptionError(subscription.error, subscription.payloadErrors)}${heldOpen ? ' at once' : ''}`;
    if (!heldOpen || !seen()) return seen() ? 'ok' : 'hidden';
    await sleep(Math.max(0, heldOpen.endsAt - Date.now()) + EXPIRY_SLACK_MS);
    return ended() ? '401' : 'ok';
  } finally {
    await subscription.close();
  }
};

function subscriptionError(error: unknown, payloadErrors: Array<{ extensions?: { code?: string } }>): Outcome {
  const code =
    payloadErrors[0]?.extensions?.code ??
    (Array.isArray(error) ? (error as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code : undefined) ??
    (error as { extensions?: { code?: string } }).extensions?.code;
  if (code) return codeStatus(code);
  const close = error as { code?: number; reason?: string };
  return `close ${close.code ?? '?'} ${close.reason ?? ''}`.trim();
}

const ROWS: Row[] = [
  // --- REST ----------------------------------------------------------------------------------
  //                                                         anonym admin owner member non-m elig  viewer agent other ended removed revoked expired
  row('DELETE /api/v1/admin/workspaces/:id/members/:userId', '401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'DELETE', `/api/v1/admin/workspaces/${fx.workspaceId}/members/${w.stranger.id}`)),
  row('DELETE /api/v1/auth/session', '                         ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'DELETE', '/api/v1/auth/session')),
  row('DELETE /api/v1/workspaces/:id/chat-destinations/:platform', '401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'DELETE', `/api/v1/workspaces/${fx.workspaceId}/chat-destinations/slack`)),
  row('DELETE /api/v1/webhooks/:id', '                         401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'DELETE', `/api/v1/webhooks/${fx.webhookId}`), withWebhook),
  row('DELETE /mcp', '                                         401    405   405   405    405   405   405    401   401   401   405     401     401', (c) => rest(c, 'DELETE', '/mcp')),
  row('DELETE /mcp/session', '                                 405    405   405   405    405   405   405    405   405   405   405     405     405', (c) => rest(c, 'DELETE', '/mcp/session')),
  row('GET /.well-known/jwks.json', '                          ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'GET', '/.well-known/jwks.json')),
  row('GET /api/v1/admin/workspaces/:id/members', '            401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/admin/workspaces/${fx.workspaceId}/members`)),
  row('GET /api/v1/auth/session', '                            401    ok    ok    ok     ok    ok    ok     401   401   401   ok      401     401', (c) => rest(c, 'GET', '/api/v1/auth/session')),
  row('GET /api/v1/clarification', '                           401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    restList(c, '/api/v1/clarification?limit=200', fx.pendingId)),
  row('GET /api/v1/clarification/:id', '                       401    ok    ok    ok     404   ok    ok     ok    404   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/clarification/${fx.pendingId}`)),
  row('GET /api/v1/clarification/:id/audit', '                 401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/clarification/${fx.answeredId}/audit`)),
  row('GET /api/v1/clarification/:id/wait', '                  401    ok    ok    ok     404   ok    ok     ok    404   401   404     401     401', waitCall, fresh),
  row('GET /api/v1/pending-interactions', '                    401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    restList(c, '/api/v1/pending-interactions', fx.sessionId)),
  row('GET /api/v1/sessions/:id', '                            401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) => rest(c, 'GET', `/api/v1/sessions/${fx.sessionId}`)),
  row('GET /api/v1/sessions/:id/messages', '                   401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/sessions/${fx.sessionId}/messages`)),
  row('GET /api/v1/tasks', '                                   401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    restList(c, '/api/v1/tasks?limit=200', fx.taskId)),
  row('GET /api/v1/tasks/:id', '                               401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) => rest(c, 'GET', `/api/v1/tasks/${fx.taskId}`)),
  row('GET /api/v1/workspaces/:id/chat-destinations', '     401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/workspaces/${fx.workspaceId}/chat-destinations`)),
  row('GET /api/v1/webhooks/:id', '                            401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) => rest(c, 'GET', `/api/v1/webhooks/${fx.webhookId}`)),
  row('GET /api/v1/webhooks/:id/deliveries', '                 401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/webhooks/${fx.webhookId}/deliveries`)),
  row('GET /api/v1/workspaces', '                              401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    restList(c, '/api/v1/workspaces?limit=200', fx.workspaceId)),
  row('GET /api/v1/workspaces/:id/webhooks', '                 401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'GET', `/api/v1/workspaces/${fx.workspaceId}/webhooks`)),
  row('GET /graphiql', '                                       ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'GET', '/graphiql')),
  row('GET /graphiql/assets/:name', '                          ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'GET', '/graphiql/assets/graphiql.min.css')),
  row('GET /graphiql/assets/init.js', '                        ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'GET', '/graphiql/assets/init.js')),
  row('GET /healthz', '                                        ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'GET', '/healthz')),
  row('GET /mcp', '                                            401    405   405   405    405   405   405    401   401   401   405     401     401', (c) => rest(c, 'GET', '/mcp')),
  row('GET /mcp/session', '                                    405    405   405   405    405   405   405    405   405   405   405     405     405', (c) => rest(c, 'GET', '/mcp/session')),
  row('GET /metrics', '                                        401    ok    404   404    404   404   404    401   401   401   404     401     401', (c) => rest(c, 'GET', '/metrics')),
  row('GET /readyz', '                                         ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c) => rest(c, 'GET', '/readyz')),
  row('PATCH /api/v1/sessions/:id', '                          401    ok    ok    403    404   403   403    ok    404   401   404     401     401', (c, fx) =>
    rest(c, 'PATCH', `/api/v1/sessions/${fx.sessionId}`, { state: 'IDLE' }), fresh),
  row('PATCH /api/v1/webhooks/:id', '                          401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'PATCH', `/api/v1/webhooks/${fx.webhookId}`, { enabled: true })),
  row('POST /api/v1/admin/tokens/:id/revoke', '                401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/admin/tokens/${fx.tokenId}/revoke`), withToken),
  row('POST /api/v1/admin/users', '                            401    ok    404   404    404   404   404    401   401   401   404     401     401', (c) => rest(c, 'POST', '/api/v1/admin/users', { name: 'matrix' })),
  row('POST /api/v1/admin/users/:id/chat-links', '             401    ok    404   404    404   404   404    401   401   401   404     401     401', (c) =>
    rest(c, 'POST', `/api/v1/admin/users/${w.spare.id}/chat-links`, { platform: 'slack', account_id: 'U0MATRIX' })),
  row('POST /api/v1/admin/users/:id/tokens', '                 401    ok    404   404    404   404   404    401   401   401   404     401     401', (c) =>
    rest(c, 'POST', `/api/v1/admin/users/${w.spare.id}/tokens`, { name: 'matrix' })),
  row('POST /api/v1/admin/workspaces/:id/members', '           401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/admin/workspaces/${fx.workspaceId}/members`, { user_id: w.member.id })),
  // Signing in with the token the caller holds (anonymous and the cookie hold none: an unknown one).
  row('POST /api/v1/auth/session', '                           401    401   ok    ok     ok    ok    ok     401   401   401   ok      401     401', (c) =>
    rest(c, 'POST', '/api/v1/auth/session', { token: c.token ?? 'parley_pat_unknown' })),
  row('POST /api/v1/clarification/:id/cancel', '               401    ok    ok    403    404   403   403    ok    404   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/clarification/${fx.pendingId}/cancel`), fresh),
  row('POST /api/v1/clarification/:id/respond', '              401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/clarification/${fx.pendingId}/respond`, answerBody), fresh),
  row('POST /api/v1/clarification/request', '                 401    ok    ok    403    404   403   403    ok    404   401   404     401     401', (c, fx) =>
    rest(c, 'POST', '/api/v1/clarification/request', { session_id: fx.sessionId, questions: ONE_QUESTION }), fresh),
  // A dry run of answer_decision on the shared bundle (it checks, and answers nothing); command:answer_decision below is the live one.
  row('POST /api/v1/commands', '                               401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', '/api/v1/commands', answerRequest(fx.sessionId, fx.decisionRef as string, { dryRun: true, selection: { option_refs: ['1'] } }))),
  row('POST /api/v1/chat-links/confirm', '                    401    400   404   404    404   404   404    401   401   401   404     401     401', (c) =>
    rest(c, 'POST', '/api/v1/chat-links/confirm', { code: 'no-such-link-request-code' })),
  row('POST /api/v1/connectors/slack/events', '               401    401   401   401    401   401   401    401   401   401   401     401     401', (c) =>
    rest(c, 'POST', '/api/v1/connectors/slack/events', { type: 'url_verification', challenge: 'matrix' })),
  row('POST /api/v1/connectors/telegram/webhook', '           401    401   401   401    401   401   401    401   401   401   401     401     401', (c) =>
    rest(c, 'POST', '/api/v1/connectors/telegram/webhook', { update_id: 1 })),
  row('POST /api/v1/receipts/redeem', '                        401    403   ok    403    403   403   403    ok    403   401   403     401     401', (c, fx) =>
    rest(c, 'POST', '/api/v1/receipts/redeem', { receipt: fx.receipt, action: ACTION }), answered),
  row('POST /api/v1/receipts/verify', '                        ok     ok    ok    ok     ok    ok    ok     ok    ok    ok    ok      ok      ok', (c, fx) =>
    rest(c, 'POST', '/api/v1/receipts/verify', { receipt: fx.receipt, action: ACTION })),
  row('POST /api/v1/sessions/:id/turns', '                     401    ok    ok    403    404   403   403    ok    404   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/sessions/${fx.sessionId}/turns`), fresh),
  row('POST /api/v1/sessions/:id/turns/:turnId/complete', '    401    ok    ok    403    404   403   403    ok    404   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/sessions/${fx.sessionId}/turns/${fx.turnId}/complete`), fresh),
  row('POST /api/v1/tasks', '                                  401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', '/api/v1/tasks', { title: 'matrix', workspace_id: fx.workspaceId })),
  // A task with a session the owner opened and its pending bundle: archiving ends that session, so only its owner (or an admin) may.
  row('POST /api/v1/tasks/:id/archive', '                      401    ok    ok    403    404   403   403    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/tasks/${fx.taskId}/archive`), busyTask),
  row('POST /api/v1/tasks/:id/sessions', '                     401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/tasks/${fx.taskId}/sessions`, {}), withTask),
  row('POST /api/v1/workspaces', '                             401    ok    ok    ok     ok    ok    ok     401   401   401   ok      401     401', (c) => rest(c, 'POST', '/api/v1/workspaces', { name: 'matrix' })),
  row('POST /api/v1/workspaces/:id/webhooks', '                401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', `/api/v1/workspaces/${fx.workspaceId}/webhooks`, WEBHOOK)),
  row('POST /mcp', '                                           401    ok    ok    ok     ok    ok    ok     401   401   401   ok      401     401', (c) => mcp(c, '/mcp', 'tools/list', {})),
  row('POST /mcp/session', '                                   401    401   401   401    401   401   401    ok    ok    401   401     401     401', (c) => mcp(c, '/mcp/session', 'tools/list', {})),
  row('PUT /api/v1/workspaces/:id/chat-destinations/:platform', '401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'PUT', `/api/v1/workspaces/${fx.workspaceId}/chat-destinations/slack`, { destination: 'C0MATRIX' })),

  // --- GraphQL -------------------------------------------------------------------------------
  row('Mutation.addWorkspaceMember', '                         401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($w: String!, $u: String!) { addWorkspaceMember(workspaceId: $w, userId: $u) { changed } }', { w: fx.workspaceId, u: w.member.id })),
  row('Mutation.answerQuestion', '                             401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    graphql(c, GQL_ANSWER, { p: fx.pendingId }), fresh),
  row('Mutation.setChatDestination', '                      401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($w: String!) { setChatDestination(workspaceId: $w, platform: "slack", destination: "C0MATRIX") { destination } }', { w: fx.workspaceId })),
  row('Mutation.createWebhook', '                              401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($w: String!, $url: String!, $e: [String!]!) { createWebhook(workspaceId: $w, url: $url, events: $e) { webhook { id } } }', {
      w: fx.workspaceId,
      url: WEBHOOK.url,
      e: WEBHOOK.events,
    })),
  row('Mutation.deleteWebhook', '                              401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($id: String!) { deleteWebhook(id: $id) }', { id: fx.webhookId }), withWebhook),
  row('Mutation.rejectQuestion', '                             401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($p: String!) { rejectQuestion(pendingId: $p, reason: "no") { status } }', { p: fx.pendingId }), fresh),
  row('Mutation.removeWorkspaceMember', '                      401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($w: String!, $u: String!) { removeWorkspaceMember(workspaceId: $w, userId: $u) { changed } }', { w: fx.workspaceId, u: w.stranger.id })),
  row('Mutation.updateWebhook', '                              401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'mutation($id: String!) { updateWebhook(id: $id, enabled: true) { id } }', { id: fx.webhookId })),
  row('Query.chatDestinations', '                            401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'query($w: String!) { chatDestinations(workspaceId: $w) { platform } }', { w: fx.workspaceId })),
  row('Query.pendingQuestions', '                              401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    graphql(c, '{ pendingQuestions(first: 200) { nodes { pendingId } } }', {}, fx.pendingId)),
  row('Query.question', '                                      401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'query($p: String!) { question(pendingId: $p) { pendingId } }', { p: fx.pendingId })),
  row('Query.questionAudit', '                                 401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'query($p: String!) { questionAudit(pendingId: $p) { nodes { outcome } } }', { p: fx.answeredId })),
  row('Query.questionEventsCursor', '                          401    ok    ok    ok     ok    ok    ok     401   401   401   ok      401     401', (c) => graphql(c, '{ questionEventsCursor }', {})),
  row('Query.taskConnection', '                                401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    graphql(c, '{ taskConnection(first: 200) { nodes { id } } }', {}, fx.taskId)),
  row('Query.tasks', '                                         401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    graphql(c, '{ tasks(first: 200) { id } }', {}, fx.taskId)),
  row('Query.webhookDeliveries', '                             401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'query($id: String!) { webhookDeliveries(webhookId: $id) { nodes { id } } }', { id: fx.webhookId })),
  row('Query.webhooks', '                                      401    ok    ok    404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'query($w: String!) { webhooks(workspaceId: $w) { id } }', { w: fx.workspaceId })),
  row('Query.workspaceConnection', '                           401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    graphql(c, '{ workspaceConnection(first: 200) { nodes { id } } }', {}, fx.workspaceId)),
  row('Query.workspaceMembers', '                              401    ok    404   404    404   404   404    401   401   401   404     401     401', (c, fx) =>
    graphql(c, 'query($w: String!) { workspaceMembers(workspaceId: $w) { userId } }', { w: fx.workspaceId })),
  row('Query.workspaces', '                                    401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    graphql(c, '{ workspaces(first: 200) { id } }', {}, fx.workspaceId)),
  row('Subscription.questionEvents', '                         401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', subscriptionCall),

  // --- MCP -----------------------------------------------------------------------------------
  // The question app's own submit: the same resolver, caller and rules as answer_question_kandev.
  row('mcp:answer_question_in_app', '                          401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    tool(c, 'answer_question_in_app', { pending_id: fx.pendingId, answers: [{ question_id: 'db', selected_options: ['postgres'] }] }), fresh),
  row('mcp:answer_question_kandev', '                          401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    tool(c, 'answer_question_kandev', { pending_id: fx.pendingId, answers: [{ question_id: 'db', selected_options: ['postgres'] }] }), fresh),
  // The in-session ask asks in the agent token's own session; it blocks until the admin answers it.
  row('mcp:ask_user_question_kandev', '                        401    401   401   401    401   401   401    ok    ok    401   401     401     401', async (c, fx) => {
    const sessionId = c.kind === 'agent' ? fx.sessionId : c.kind === 'otherAgent' ? w.otherSessionId : undefined;
    const asking = tool(c, 'ask_user_question_kandev', { questions: ONE_QUESTION }, undefined, '/mcp/session');
    if (sessionId) await answerWhenAsked(sessionId, fx.pendingId, asking);
    return asking;
  }, fresh),
  row('mcp:list_pending_questions_kandev', '                   401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    tool(c, 'list_pending_questions_kandev', { limit: 200 }, fx.pendingId)),
  row('mcp:list_tasks_kandev', '                               401    ok    ok    ok     hidden ok   ok     401   401   401   hidden  401     401', (c, fx) =>
    tool(c, 'list_tasks_kandev', { limit: 200 }, fx.taskId)),
  row('mcp:show_question', '                                   401    ok    ok    ok     404   ok    ok     401   401   401   404     401     401', (c, fx) =>
    tool(c, 'show_question', { pending_id: fx.pendingId })),

  // --- Connector commands (POST /api/v1/commands) --------------------------------------------
  // A live answer_decision on the caller's own new bundle, with a request id another user spent first.
  row('command:answer_decision', '                             401    ok    403   403    404   ok    403    401   401   401   404     401     401', (c, fx) =>
    rest(c, 'POST', '/api/v1/commands', answerRequest(fx.sessionId, fx.decisionRef as string, { requestId: SPENT_REQUEST_ID, selection: { option_refs: ['1'] } })), withDecision),
];

// ---------------------------------------------------------------------------------------------
// The table as docs/security.md states it
// ---------------------------------------------------------------------------------------------

const SURFACES: Array<[string, (key: string) => boolean]> = [
  ['REST', (key) => /^[A-Z]+ \//.test(key)],
  ['GraphQL', (key) => /^(Query|Mutation|Subscription)\./.test(key)],
  ['MCP', (key) => key.startsWith('mcp:')],
  ['Connector commands', (key) => key.startsWith('command:')],
];

/** Each table row as its cells: the entry point (in backticks), then one outcome per caller. */
const tableRow = (cells: string[]) => `| ${cells.join(' | ')} |`;
const expectedCells = (entry: Row) => [`\`${entry.key}\``, ...KINDS.map((kind) => entry.expected[kind])];

/** The rows by surface, in the order the tables list them. */
const bySurface = (): Row[] => SURFACES.flatMap(([, holds]) => ROWS.filter((entry) => holds(entry.key)));

/** The markdown of the tables, one per surface, as docs/security.md has them. */
function renderTables(): string {
  return SURFACES.map(([surface, holds]) =>
    [
      `**${surface}**`,
      '',
      tableRow(['Entry point', ...KINDS.map((kind) => LABELS[kind])]),
      tableRow(['---', ...KINDS.map(() => '---')]),
      ...ROWS.filter((entry) => holds(entry.key)).map((entry) => tableRow(expectedCells(entry))),
    ].join('\n'),
  ).join('\n\n');
}

/** The rows of every table in the section `### The access matrix` of docs/security.md, as cells. */
function documentedRows(): string[][] {
  const doc = readFileSync(path.join(process.cwd(), 'docs/security.md'), 'utf8');
  const start = doc.indexOf('\n### The access matrix\n');
  if (start < 0) throw new Error('docs/security.md has no "### The access matrix" section');
  const rest = doc.slice(start + 1);
  const end = rest.slice(1).search(/\n#{2,3} /);
  const section = end < 0 ? rest : rest.slice(0, end + 1);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.slice(1, -1).split('|').map((cell) => cell.trim()));
}

// ---------------------------------------------------------------------------------------------

describe('the access matrix: every entry point, every kind of caller', () => {
  beforeAll(async () => {
    const base = loadConfig({});
    const unlimited = Object.fromEntries(Object.entries(base.rateLimits).map(([name, value]) => [name, name === 'windowSeconds' ? value : 1_000_000]));
    t = await startApp({
      config: {
        authMode: 'enabled',
        browserSessionIdleTimeoutMs: BROWSER_SESSION_MS,
        browserSessionMaxAgeMs: BROWSER_SESSION_MS,
        graphql: { ...base.graphql, graphiql: true },
        rateLimits: unlimited as typeof base.rateLimits,
        // Chat configured, so the connectors answer as in production: only the platform's signature or secret is a credential there.
        chat: {
          slack: { botToken: 'xoxb-matrix', signingSecret: 'matrix-signing-secret', apiUrl: 'http://127.0.0.1:9/api/' },
          telegram: { botToken: '1:matrix', apiUrl: 'http://127.0.0.1:9/', webhookSecret: 'matrix-telegram-secret' },
        },
      },
    });
    // The owner, four members (member, eligible, viewer, removed) and a stranger; S is the owner's running session.
    const crew = await team(t, 4, 'matrix');
    const memberAt = (index: number): Person => {
      const person = crew.members[index];
      if (!person) throw new Error(`the team has no member ${index}`);
      return person;
    };
    const [member, eligible, viewer, removed] = [0, 1, 2, 3].map(memberAt) as [Person, Person, Person, Person];
    const expiredCookie = await signIn(t, crew.owner.token);
    const cursor = (await gql<{ questionEventsCursor: string }>(t, '{ questionEventsCursor }', undefined, TEST_ADMIN_TOKEN)).body.data?.questionEventsCursor as string;
    const asOwnerNow = bearer(crew.owner.token);
    const ask = async (sessionId: string) =>
      (
        await ok(
          request(t.baseUrl)
            .post('/api/v1/clarification/request')
            .set(asOwnerNow)
            .send({ session_id: sessionId, questions: ONE_QUESTION, routing: { answerers: { user_ids: [eligible.id] } }, action: ACTION }),
        )
      ).body.pending_id as string;
    const pendingId = await ask(crew.fixture.sessionId);
    w = {
      owner: crew.owner,
      member,
      eligible,
      viewer,
      stranger: crew.stranger,
      removed,
      spare: await createUser(t, 'matrix-spare'),
      revokedToken: '',
      expiredCookie,
      otherAgentToken: '',
      otherSessionId: '',
      endedAgentToken: '',
      shared: { ...crew.fixture, pendingId, answeredId: '', receipt: '', webhookId: '', decisionRef: '', cursor },
    };
    const [answeredOne, webhookId, decisionRef, revoked, other, ended] = await Promise.all([
      answered(),
      webhook(),
      decisionRefOf(t, crew.fixture.sessionId, crew.owner.token),
      (async () => {
        const token = await ok(request(t.baseUrl).post(`/api/v1/admin/users/${crew.owner.id}/tokens`).set('authorization', ADMIN).send({ name: 'revoked' }), 201);
        await ok(request(t.baseUrl).post(`/api/v1/admin/tokens/${token.body.id as string}/revoke`).set('authorization', ADMIN));
        return token.body.token as string;
      })(),
      (async () => {
        // Another workspace, whose owner — outside the cast — spends SPENT_REQUEST_ID on a bundle there.
        const outsider = await createUser(t, 'matrix-outsider');
        const fixture = await createRunningSession(t, { bearer: outsider.token });
        await ok(request(t.baseUrl).post('/api/v1/clarification/request').set(bearer(outsider.token)).send({ session_id: fixture.sessionId, questions: ONE_QUESTION }));
        const ref = await decisionRefOf(t, fixture.sessionId, outsider.token);
        const spent = await http({ headers: bearer(outsider.token) }, 'POST', '/api/v1/commands', answerRequest(fixture.sessionId, ref, { requestId: SPENT_REQUEST_ID, selection: { option_refs: ['1'] } }));
        if (spent.status !== 200) throw new Error(`the outsider's command failed: ${spent.status} ${spent.text}`);
        return fixture;
      })(),
      (async () => {
        const session = await ok(request(t.baseUrl).post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`).set(asOwnerNow).send({}), 201);
        await ok(request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id as string}`).set(asOwnerNow).send({ state: 'COMPLETED' }));
        return session.body.agent_token as string;
      })(),
      (async () => {
        expect((await removeMember(t, crew.fixture.workspaceId, removed.id)).status).toBe(200);
      })(),
    ]);
    Object.assign(w, { revokedToken: revoked, otherAgentToken: other.agentToken, otherSessionId: other.sessionId, endedAgentToken: ended });
    Object.assign(w.shared, { answeredId: answeredOne.answeredId, receipt: answeredOne.receipt, webhookId, decisionRef });
    // The `expired` cookie has outlived its browser session before any row runs.
    const deadline = Date.now() + BROWSER_SESSION_MS + EXPIRY_SLACK_MS;
    while ((await http({ headers: cookieHeaders(expiredCookie) }, 'GET', '/api/v1/auth/session')).status !== 401) {
      if (Date.now() > deadline) throw new Error('the browser session did not expire');
      await sleep(100);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every entry point the app has has a row, and every row is an entry point the app has', async () => {
    const keys = await entryPointKeys(t);
    const rows = ROWS.map((entry) => entry.key);
    const missing = keys.filter((key) => !rows.includes(key));
    const stale = rows.filter((key) => !keys.includes(key));
    const repeated = rows.filter((key, index) => rows.indexOf(key) !== index);
    if (missing.length + stale.length + repeated.length > 0) {
      throw new Error(
        [
          missing.length > 0 ? `entry points without a row in the access matrix: ${missing.join(', ')}` : '',
          stale.length > 0 ? `rows for entry points the app does not have: ${stale.join(', ')}` : '',
          repeated.length > 0 ? `rows given twice: ${repeated.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }
  });

  it.each(ROWS.map((entry) => [entry.key, entry] as const))('%s', async (_key, entry) => {
    const observed = Object.fromEntries(
      await Promise.all(
        KINDS.map(async (kind) => {
          const fx = entry.arrange ? await entry.arrange() : w.shared;
          try {
            return [kind, await entry.call(who(kind, fx), fx)] as const;
          } catch (error) {
            return [kind, `threw ${(error as Error).message}`] as const;
          }
        }),
      ),
    );
    if (entry.key.includes('webhook') || entry.key.includes('Webhook')) await dropWebhooks();
    expect(observed).toEqual(entry.expected);
  });

  it('docs/security.md states this table, cell for cell', () => {
    expect(bySurface().length).toBe(ROWS.length);
    const expected = bySurface().map(expectedCells);
    const documented = documentedRows();
    if (JSON.stringify(documented) !== JSON.stringify(expected)) {
      const differing = expected.filter((cells, index) => JSON.stringify(cells) !== JSON.stringify(documented[index])).map((cells) => cells[0]);
      throw new Error(
        `docs/security.md ("### The access matrix") differs from this spec's table at ${differing.join(', ')} ` +
          `(${documented.length} rows documented, ${expected.length} here). The tables, as they should read:\n\n${renderTables()}\n`,
      );
    }
  });
});
