/**
 * The rate limits are counted in PostgreSQL, shared by every replica: two real server processes on
 * one database spend the sign-in, failed-credential, answers and lists budgets together — requests
 * alternating between them reach each limit at the configured count, not twice it; kill -9 and a
 * start again keep the counts; with the database stopped each process's insurance limiter still
 * limits, every request ends at once (503 or 429), and the shared counts resume once it is back.
 *
 * Each budget is spent from its own client address (127.0.0.x, all reaching the servers' loopback
 * listener), so the counts of one budget never mix with another's.
 */
import http from 'node:http';
import { eventually } from '../support/eventually.js';
import { FaultDatabase } from '../support/fault-database.js';
import { FAST_LEASE } from '../support/replicas.js';
import { killAllServers, killServer, type ServerProcess, startServerProcess } from '../support/server-process.js';

const ADMIN_TOKEN = 'limits-admin-token-0123456789abcdef';
const LIMITS = { sign_in: 4, failed_credentials: 4, answers: 6, lists: 5 };
const ENV: Record<string, string> = {
  ...FAST_LEASE,
  AUTH_MODE: 'enabled',
  ADMIN_TOKEN,
  DB_CONNECT_TIMEOUT_MS: '1000',
  DB_POOL_ACQUIRE_TIMEOUT_MS: '2000',
  // A window longer than the test: nothing resets on its own while it runs.
  RATE_LIMIT_WINDOW_SECONDS: '3600',
  RATE_LIMIT_SIGN_IN: String(LIMITS.sign_in),
  RATE_LIMIT_FAILED_CREDENTIALS: String(LIMITS.failed_credentials),
  RATE_LIMIT_ANSWERS: String(LIMITS.answers),
  RATE_LIMIT_LISTS: String(LIMITS.lists),
};
/** Refused at once, or a connection given up at DB_CONNECT_TIMEOUT_MS — plus slack for a loaded machine. */
const FAIL_FAST_MS = 2_500;

/** The client address of each budget's requests. */
const FROM = { admin: '127.0.0.1', signIn: '127.0.0.2', guesser: '127.0.0.3', outage: '127.0.0.4', recovered: '127.0.0.5' };

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/** One HTTP request from `localAddress` (fetch cannot choose its source address). */
function send(server: ServerProcess, localAddress: string, method: string, path: string, options: { bearer?: string; body?: unknown } = {}): Promise<Reply> {
  const started = performance.now();
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        localAddress,
        method,
        path,
        headers: {
          ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
        agent: false,
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

const signIn = (server: ServerProcess, from = FROM.signIn) => send(server, from, 'POST', '/api/v1/auth/session', { body: { token: 'parley_pat_not-a-token' } });
const guess = (server: ServerProcess) => send(server, FROM.guesser, 'GET', '/api/v1/tasks', { bearer: 'parley_pat_wrong-guess' });
const listTasks = (server: ServerProcess, from = FROM.admin) => send(server, from, 'GET', '/api/v1/tasks', { bearer: ADMIN_TOKEN });
/** A dry-run command (no such worker): it spends one unit of the answers budget, whatever it finds. */
let commandNumber = 0;
const command = (server: ServerProcess) =>
  send(server, FROM.admin, 'POST', '/api/v1/commands', {
    bearer: ADMIN_TOKEN,
    body: {
      schema_version: 1,
      action: 'answer_decision',
      request_id: `limits-${String((commandNumber += 1))}`,
      target: { worker_id: 'no-such-worker' },
      params: { decision_ref: 'none', selection: { option_refs: ['1'] } },
    },
  });

/** `r` of the named budget in a RateLimit field. */
function remaining(reply: Reply, kind: string): number | undefined {
  const match = new RegExp(`"${kind}";r=(\\d+)`).exec(String(reply.headers.ratelimit ?? ''));
  return match ? Number(match[1]) : undefined;
}

/** The replies of `count` requests made one after another, alternating between the replicas. */
async function alternately(replicas: readonly ServerProcess[], count: number, request: (server: ServerProcess) => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < count; i++) replies.push(await request(replicas[i % replicas.length]));
  return replies;
}

const statuses = (replies: readonly Reply[]) => replies.map((reply) => reply.status);

describe('rate limits shared by replicas on one database', () => {
  let db: FaultDatabase;
  let replicas: ServerProcess[] = [];

  const start = () => Promise.all([0, 1].map(() => startServerProcess({ env: { ...ENV, DATABASE_URL: db.url } })));

  beforeAll(async () => {
    db = await FaultDatabase.start();
    replicas = await start();
  }, 120_000);
  afterAll(async () => {
    await killAllServers();
    await db.remove();
  });

  it('spent alternately on two replicas, each budget reaches its limit at the configured count, not twice it', async () => {
    // Sign-in: 4 attempts (refused tokens) across both, then both refuse.
    const signIns = await alternately(replicas, LIMITS.sign_in + 2, (server) => signIn(server));
    expect(statuses(signIns)).toEqual([401, 401, 401, 401, 429, 429]);
    expect(signIns.slice(0, LIMITS.sign_in).map((reply) => remaining(reply, 'sign_in'))).toEqual([3, 2, 1, 0]);

    // Answers: the RateLimit field counts down across both replicas.
    const commands = await alternately(replicas, LIMITS.answers + 2, command);
    expect(statuses(commands.slice(0, LIMITS.answers)).every((status) => status !== 429)).toBe(true);
    expect(commands.slice(0, LIMITS.answers).map((reply) => remaining(reply, 'answers'))).toEqual([5, 4, 3, 2, 1, 0]);
    expect(statuses(commands.slice(LIMITS.answers))).toEqual([429, 429]);
    expect(JSON.parse(commands[LIMITS.answers]?.body ?? '{}')).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 6 answers per 3600 s/), code: 'RATE_LIMITED' });

    // Lists: 3 of 5 spent here; the restart below must keep them.
    const lists = await alternately(replicas, 3, (server) => listTasks(server));
    expect(statuses(lists)).toEqual([200, 200, 200]);
    expect(lists.map((reply) => remaining(reply, 'lists'))).toEqual([4, 3, 2]);

    // Failed credentials: 4 refused guesses across both spend the budget; every later guess is 429
    // on either replica, while a valid credential from the same address is served.
    expect(statuses(await alternately(replicas, LIMITS.failed_credentials, guess))).toEqual([401, 401, 401, 401]);
    const [first, second] = replicas as [ServerProcess, ServerProcess];
    for (const server of [first, second, first]) {
      const refused = await guess(server);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body)).toEqual({ error: expect.stringMatching(/^rate limit exceeded: at most 4 failed credentials per 3600 s/), code: 'RATE_LIMITED' });
    }
    // The admin's valid token from that address is served (spending the admin's fourth lists unit).
    expect((await listTasks(first, FROM.guesser)).status).toBe(200);
  });

  it('kill -9 of both replicas and a start again keep the counts', async () => {
    await Promise.all(replicas.map((server) => killServer(server)));
    replicas = await start();
    const [first, second] = replicas as [ServerProcess, ServerProcess];

    expect(statuses([await signIn(first), await signIn(second)])).toEqual([429, 429]);
    expect(statuses([await command(first), await command(second)])).toEqual([429, 429]);
    // The spent address's guesses stay refused in the new processes.
    expect(statuses(await Promise.all(replicas.map((server) => guess(server))))).toEqual([429, 429]);
    // Lists: 4 before the restart (3 above, 1 from the guesser's address), so one is left.
    const lists = await alternately(replicas, 2, (server) => listTasks(server));
    expect(statuses(lists)).toEqual([200, 429]);
    expect(remaining(lists[0], 'lists')).toBe(0);
  });

  it('with the database stopped, each replica’s insurance limiter still limits and every request ends at once; shared again once it is back', async () => {
    await db.stop();
    try {
      for (const server of replicas) {
        // Per replica while the database is away: its own memory counts.
        const replies = await alternately([server], LIMITS.sign_in + 1, (target) => signIn(target, FROM.outage));
        expect(statuses(replies)).toEqual([503, 503, 503, 503, 429]);
        expect(replies.filter((reply) => reply.ms > FAIL_FAST_MS).map((reply) => reply.ms)).toEqual([]);
      }
    } finally {
      await db.restart();
    }
    await eventually(async () => ((await Promise.all(replicas.map((server) => send(server, FROM.admin, 'GET', '/readyz')))).every((reply) => reply.status === 200) ? true : undefined), 20_000, 'both /readyz 200');
    const recovered = await alternately(replicas, LIMITS.sign_in + 1, (server) => signIn(server, FROM.recovered));
    expect(statuses(recovered)).toEqual([401, 401, 401, 401, 429]);
    expect(recovered.slice(0, LIMITS.sign_in).map((reply) => remaining(reply, 'sign_in'))).toEqual([3, 2, 1, 0]);
  });
});
