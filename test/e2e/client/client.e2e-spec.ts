/**
 * The typed client (@parley/client) against the real built server in its own process: asking,
 * waiting for each of the five outcomes, answering (one winner, the loser told the winner's answer),
 * the pending list over keyset pages, typed errors with the server's codes, resume exactly once per
 * ledger with the hand-off's key, and the resume webhook receiver honouring its Idempotency-Key.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createResumeReceiver,
  FileResumeLedger,
  MemoryResumeLedger,
  Parley,
  ParleyAlreadyResumedError,
  ParleyConflictError,
  ParleyNotFoundError,
  ParleyUnreachableError,
  ParleyValidationError,
  type ResumePayload,
} from '@parley/client';
import { createTestDatabase, openPool } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { freePort, killAllServers, type ServerProcess, startServerProcess } from '../../support/server-process.js';

const QUESTIONS = [
  { id: 'db', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] },
  { prompt: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] },
];
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: ' now ' },
];

describe('@parley/client against the server', () => {
  let server: ServerProcess;
  let db: ReturnType<typeof openPool>;
  let agent: Parley;
  let person: Parley;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    db = openPool(databaseUrl, 2);
    server = await startServerProcess({ env: { DATABASE_URL: databaseUrl, DEADLINE_SWEEP_INTERVAL_MS: '100' } });
    agent = new Parley({ url: server.baseUrl });
    person = new Parley({ url: server.baseUrl });
  });
  afterAll(async () => {
    await killAllServers();
    await db.end();
  });

  const session = () => agent.projection.openSession({ taskTitle: 'client test' });
  const parked = (pendingId: string) =>
    eventually(async () => ((await db.query('SELECT 1 FROM clarification_waiters WHERE pending_id = $1', [pendingId])).rowCount ? true : undefined), 10_000, 'a parked wait');

  it('asks, waits, and gets the one answer; a second answer loses and is told the winner’s', async () => {
    const { sessionId } = await session();
    const handle = await agent.ask({ sessionId, questions: QUESTIONS, context: 'why' });
    const waited = handle.wait();
    await parked(handle.pendingId);
    const won = await person.respond(handle.pendingId, ANSWERS);
    expect(won).toEqual({
      claimed: true,
      status: 'answered',
      answers: [ANSWERS[0], { ...ANSWERS[1], custom_text: 'now' }],
      rejected: false,
      rejectReason: '',
      receipt: expect.any(String),
    });
    const outcome = await waited;
    expect(outcome).toMatchObject({ status: 'answered', pendingId: handle.pendingId, answers: won.answers });
    const lost = await person.respond(handle.pendingId, [{ question_id: 'db', selected_options: ['sqlite'] }, { question_id: 'q2' }]);
    expect(lost).toMatchObject({ claimed: false, status: 'answered', answers: won.answers, receipt: won.receipt });
    // Asked again after it was answered: the server's record, not a second bundle.
    expect(await handle.wait()).toMatchObject({ status: 'answered', answers: won.answers });
    expect((await handle.read()).status).toBe('answered');
  });

  it('asking the same questions again while they are pending returns the same bundle (a retried ask never asks twice)', async () => {
    const { sessionId } = await session();
    const first = await agent.ask({ sessionId, questions: QUESTIONS });
    const again = await agent.ask({ sessionId, questions: QUESTIONS });
    expect(again.pendingId).toBe(first.pendingId);
  });

  it('a rejection reaches the live waiter with its reason; a later read recovers the reason from the audit trail', async () => {
    const { sessionId } = await session();
    const handle = await agent.ask({ sessionId, questions: QUESTIONS });
    const waited = handle.wait();
    await parked(handle.pendingId);
    await person.respond(handle.pendingId, { reject: true, reason: 'not on a Friday' });
    expect(await waited).toMatchObject({ status: 'rejected', reason: 'not on a Friday' });
    expect(await new Parley({ url: server.baseUrl }).bundle(handle.pendingId).wait()).toMatchObject({ status: 'rejected', reason: 'not on a Friday' });
  });

  it('cancelled, superseded and expired bundles end the wait with their status', async () => {
    const cancelled = await agent.ask({ sessionId: (await session()).sessionId, questions: QUESTIONS });
    const cancelWait = cancelled.wait();
    await parked(cancelled.pendingId);
    await cancelled.cancel();
    expect(await cancelWait).toEqual({ status: 'cancelled', pendingId: cancelled.pendingId });

    const { sessionId } = await session();
    const superseded = await agent.ask({ sessionId, questions: QUESTIONS });
    const supersedeWait = superseded.wait();
    await parked(superseded.pendingId);
    await agent.projection.startTurn(sessionId);
    expect(await supersedeWait).toEqual({ status: 'superseded', pendingId: superseded.pendingId });

    const expiring = await agent.ask({ sessionId: (await session()).sessionId, questions: QUESTIONS, expiresInSeconds: 1 });
    expect(await expiring.wait()).toEqual({ status: 'expired', pendingId: expiring.pendingId });
    await expect(person.respond(expiring.pendingId, ANSWERS)).rejects.toBeInstanceOf(ParleyConflictError);
  });

  it('pending() walks every keyset page, oldest first, each bundle once, within one workspace', async () => {
    const { workspaceId, taskId } = await session();
    const asked: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const created = await agent.projection.createSession(taskId);
      await agent.projection.setSessionState(created.id, 'RUNNING');
      asked.push((await agent.ask({ sessionId: created.id, questions: [{ prompt: `Question ${index}?`, options: [{ label: 'A' }, { label: 'B' }] }] })).pendingId);
    }
    const listed: string[] = [];
    for await (const bundle of agent.pending({ workspaceId, pageSize: 2 })) listed.push(bundle.pending_id);
    expect(listed).toEqual(asked);
  });

  it('errors are typed and carry the server’s code', async () => {
    await expect(agent.get('no-such-bundle')).rejects.toMatchObject({ constructor: ParleyNotFoundError, code: 'NOT_FOUND', status: 404 });
    const { sessionId } = await session();
    const refused = agent.ask({ sessionId, questions: [] });
    await expect(refused).rejects.toBeInstanceOf(ParleyValidationError);
    await expect(refused).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400, message: expect.stringMatching(/questions/) });
    const nowhere = new Parley({ url: `http://127.0.0.1:${await freePort()}`, attempts: 2, backoff: { initialMs: 10, maxMs: 10 } });
    await expect(nowhere.get('x')).rejects.toMatchObject({ constructor: ParleyUnreachableError, code: 'UNREACHABLE' });
  });

  it('resume() hands an answer over once per ledger, with the hand-off the server made for it', async () => {
    const ledger = new FileResumeLedger(await mkdtemp(path.join(tmpdir(), 'parley-ledger-')));
    const durable = new Parley({ url: server.baseUrl, ledger });
    const { sessionId } = await session();
    const handle = await durable.ask({ sessionId, questions: QUESTIONS });
    // Answered while nobody waits: the server hands it off (a successor turn with a queued resume prompt).
    await person.respond(handle.pendingId, ANSWERS);
    const resumed = await durable.resume(handle.pendingId);
    expect(resumed).toMatchObject({ status: 'answered', answers: [ANSWERS[0], { ...ANSWERS[1], custom_text: 'now' }] });
    expect(resumed.handoff?.turnId).toEqual(expect.any(String));
    expect(resumed.handoff?.prompt).toEqual(expect.any(String));
    expect(await ledger.get(handle.pendingId)).toMatchObject({ handoffKey: resumed.handoff?.idempotencyKey });
    // Again, in this process or a restarted one sharing the ledger: not handed over twice.
    await expect(durable.resume(handle.pendingId)).rejects.toBeInstanceOf(ParleyAlreadyResumedError);
    await expect(new Parley({ url: server.baseUrl, ledger }).resume(handle.pendingId)).rejects.toMatchObject({ code: 'ALREADY_RESUMED' });
  });

  describe('the resume webhook receiver', () => {
    let receiver: Server;
    let url: string;
    const received: Array<{ payload: ResumePayload; key: string }> = [];
    const ledger = new MemoryResumeLedger();

    beforeAll(async () => {
      receiver = createServer(createResumeReceiver({ ledger, onResume: (payload, key) => void received.push({ payload, key }) }));
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/resume`;
    });
    afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    it('passes the first delivery of a key on, and acknowledges a re-send of the same key without passing it on', async () => {
      const opened = await agent.projection.openSession({ taskTitle: 'webhook', resumeUrl: url });
      const handle = await agent.ask({ sessionId: opened.sessionId, questions: QUESTIONS });
      await person.respond(handle.pendingId, ANSWERS);
      await eventually(() => (received.length > 0 ? true : undefined), 10_000, 'the resume webhook');
      expect(received).toHaveLength(1);
      const [{ payload, key }] = received as [{ payload: ResumePayload; key: string }];
      expect(payload).toMatchObject({ pending_id: handle.pendingId, session_id: opened.sessionId, turn_id: key });
      const resend = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(payload) });
      expect(resend.status).toBe(200);
      expect(await resend.json()).toEqual({ duplicate: true });
      expect(received).toHaveLength(1);
    });
  });
});
