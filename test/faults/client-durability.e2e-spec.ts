/**
 * Durable agents on @parley/client: an agent process killed with kill -9 while it waits, then a
 * fresh process that resumes and gets the answer exactly once — the plain client (its resume
 * ledger), the Agents SDK adapter (the RunState stored with the bundle) and the LangGraph adapter
 * (the thread's checkpointer) — and a wait() that outlives restarts of the server it waits on.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Parley } from '@parley/client';
import { CLIENT_AGENT, EXAMPLE, killAgent, spawnAgent } from '../support/agent-process.js';
import { createTestDatabase, openPool } from '../support/database.js';
import { eventually } from '../support/eventually.js';
import { killAllServers, killServer, launchServer, type ServerProcess, startServerProcess, stopServer, waitHealthy } from '../support/server-process.js';

const lines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('durable agents and restarts', () => {
  let databaseUrl: string;
  let db: ReturnType<typeof openPool>;
  let server: ServerProcess;
  let person: Parley;
  let scratch: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 2);
    server = await startServerProcess({ env: { DATABASE_URL: databaseUrl } });
    person = new Parley({ url: server.baseUrl });
    scratch = await mkdtemp(path.join(tmpdir(), 'parley-agents-'));
  });
  afterAll(async () => {
    await killAllServers();
    await db.end();
  });

  /** The process ids holding a live wait on the bundle. */
  const waiters = async (pendingId: string) =>
    (await db.query<{ process_id: string }>('SELECT process_id FROM clarification_waiters WHERE pending_id = $1', [pendingId])).rows.map((row) => row.process_id);
  /** Bundles asked on a session (a resumed agent must not have asked a second one). */
  const bundlesOf = async (sessionId: string) =>
    (await db.query<{ pending_id: string }>('SELECT DISTINCT pending_id FROM clarification_bundles WHERE session_id = $1', [sessionId])).rows.map((row) => row.pending_id);

  it('the plain client: killed while it waits, a fresh process resumes with the answer once; a third is told it was handed over', async () => {
    const env = { PARLEY_URL: server.baseUrl, LEDGER_DIR: path.join(scratch, 'ledger'), SESSION_FILE: path.join(scratch, 'client-session') };
    const first = spawnAgent(CLIENT_AGENT, env, ['ask']);
    const pendingId = await first.waiting();
    await eventually(async () => ((await waiters(pendingId)).length > 0 ? true : undefined), 10_000, 'the agent parked');
    expect((await killAgent(first)).signal).toBe('SIGKILL');
    const answers = [{ question_id: 'db', selected_options: ['sqlite'], custom_text: 'after the crash' }];
    expect(await person.respond(pendingId, answers)).toMatchObject({ claimed: true });

    const second = await spawnAgent(CLIENT_AGENT, env, ['resume', pendingId]).result();
    expect(second.exit.code).toBe(0);
    expect(second.json).toEqual({
      resumed: { status: 'answered', pendingId, answers, respondedAt: expect.any(String), handoff: { turnId: expect.any(String), idempotencyKey: expect.any(String), prompt: expect.any(String) } },
    });
    const third = await spawnAgent(CLIENT_AGENT, env, ['resume', pendingId]).result();
    expect(third.json).toEqual({ already_resumed: pendingId });
    expect(await bundlesOf(await readFile(env.SESSION_FILE, 'utf8'))).toEqual([pendingId]);
  });

  it.each([
    ['openai-agents', 'REFUNDS_LOG', [{ question_id: 'approval_1', selected_options: ['approve'], custom_text: '' }]],
    ['langgraph', 'ACTIONS_LOG', [{ question_id: 'plan', selected_options: ['all'], custom_text: '' }]],
  ])('the %s example: killed while it waits, restarted, it resumes on the same bundle and acts once', async (name, logVariable, answers) => {
    const log = path.join(scratch, `${name}.log`);
    const env = { PARLEY_URL: server.baseUrl, PARLEY_STATE_DIR: path.join(scratch, name), [logVariable]: log };
    const first = spawnAgent(EXAMPLE(name), env);
    const pendingId = await first.waiting();
    await eventually(async () => ((await waiters(pendingId)).length > 0 ? true : undefined), 10_000, 'the agent parked');
    await killAgent(first);
    expect(await person.respond(pendingId, answers)).toMatchObject({ claimed: true });

    const second = spawnAgent(EXAMPLE(name), env);
    expect(await second.waiting()).toBe(pendingId);
    const { exit, json } = await second.result();
    expect(exit.code).toBe(0);
    expect(json).toHaveProperty('answered');
    expect(await lines(log)).toHaveLength(1);
    const { session_id: sessionId } = await person.get(pendingId);
    expect(await bundlesOf(sessionId)).toEqual([pendingId]);
  });

  it('wait() keeps waiting across a kill -9 and a SIGTERM of the server, and gets the answer once it comes', async () => {
    const parley = new Parley({ url: server.baseUrl, backoff: { initialMs: 100, maxMs: 1000 } });
    const { sessionId } = await parley.projection.openSession({ taskTitle: 'restarts' });
    const handle = await parley.ask({ sessionId, questions: [{ prompt: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] });
    const waited = handle.wait();
    const seen = new Set<string>();
    /** Until a process not seen before holds the wait: the client reconnected to the new server. */
    const reparked = () =>
      eventually(async () => {
        const fresh = (await waiters(handle.pendingId)).filter((processId) => !seen.has(processId));
        fresh.forEach((processId) => seen.add(processId));
        return fresh.length > 0 ? true : undefined;
      }, 30_000, 'the wait parked on the new server');
    await reparked();
    for (const stop of [killServer, stopServer]) {
      await stop(server);
      server = launchServer({ env: { DATABASE_URL: databaseUrl }, dataDir: server.dataDir, port: server.port });
      await waitHealthy(server);
      await reparked();
    }
    const answers = [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }];
    expect(await person.respond(handle.pendingId, answers)).toMatchObject({ claimed: true });
    await expect(waited).resolves.toMatchObject({ status: 'answered', pendingId: handle.pendingId, answers });
    expect(await bundlesOf(sessionId)).toEqual([handle.pendingId]);
  });
});
