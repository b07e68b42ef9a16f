/**
 * The answer_decision contract under process faults, with the real built server (test/support/server-process.ts) on one
 * PostgreSQL database shared with an in-process replica whose CommandClock the test moves:
 * - a replay after a server restart returns the stored envelope byte for byte;
 * - a replica killed with kill -9 between send_started and accepted (held there by the test-only
 *   PARLEY_TEST_PAUSE_AT fault point) leaves a receipt that is reported request_state_uncertain once
 *   its lease has expired, is never resent, and its bundle keeps exactly one winner.
 */
import request from 'supertest';
import { CommandClock } from '#decisions';
import { startApp, type TestApp } from '../../support/app.js';
import { createTestDatabase } from '../../support/database.js';
import { answerRequest, ask, command, databaseQuestion, decisionRefOf } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession } from '../../support/fixtures.js';
import { killAllServers, killServer, logLines, type ServerProcess, startServerProcess, stopServer } from '../../support/server-process.js';

const LEASE_MS = 30_000;

/** The raw response of one POST /api/v1/commands. */
async function post(baseUrl: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${baseUrl}/api/v1/commands`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('answer_decision across restarts and a killed replica', () => {
  let observer: TestApp;

  beforeAll(async () => {
    observer = await startApp({ databaseUrl: await createTestDatabase() });
  });
  afterAll(async () => {
    await killAllServers();
    await observer.close();
  });
  afterEach(() => {
    observer.app.get(CommandClock).now = () => new Date();
  });

  async function receiptOf(requestId: string): Promise<{ state: string; status: string; envelope: string | null } | undefined> {
    const { rows } = await observer.db.query(`SELECT state, status, envelope FROM command_receipts WHERE request_id = $1`, [requestId]);
    return rows[0] as { state: string; status: string; envelope: string | null } | undefined;
  }

  async function bundleOf(pendingId: string): Promise<Array<{ status: string; response: unknown }>> {
    const { rows } = await observer.db.query(
      `SELECT metadata->>'status' AS status, metadata->'response' AS response FROM task_session_messages
        WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`,
      [pendingId],
    );
    return rows as Array<{ status: string; response: unknown }>;
  }

  async function winners(pendingId: string): Promise<{ events: number; resumes: number }> {
    const events = await observer.db.query(`SELECT 1 FROM question_events WHERE pending_id = $1 AND type = 'ANSWERED'`, [pendingId]);
    const resumes = await observer.db.query(`SELECT 1 FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`, [pendingId]);
    return { events: events.rowCount ?? -1, resumes: resumes.rowCount ?? -1 };
  }

  it('a replay after a server restart returns the stored envelope byte for byte', async () => {
    const env = { DATABASE_URL: observer.databaseUrl };
    let server: ServerProcess = await startServerProcess({ env });
    const fixture = await createRunningSession(server);
    await ask(server, fixture.sessionId, [databaseQuestion()]);
    const body = answerRequest(fixture.sessionId, await decisionRefOf(server, fixture.sessionId), { requestId: 'restart-replay' });
    const first = await post(server.baseUrl, body);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({ status: 'accepted', disposition: 'terminal_accepted' });
    // The line reaches the pipe a moment after the response: wait for it, then compare it whole.
    const attemptsOf = () =>
      logLines(server.output.stdout)
        .filter((line) => line.context === 'Commands')
        .map(({ msg, request_id, worker_id, dry_run, status, disposition }) => ({ msg, request_id, worker_id, dry_run, status, disposition }));
    const attempts = await eventually(() => (attemptsOf().some((line) => line.request_id === 'restart-replay') ? attemptsOf() : undefined), 10_000, 'the command log line');
    expect(attempts).toContainEqual({
      msg: 'command',
      request_id: 'restart-replay',
      worker_id: fixture.sessionId,
      dry_run: false,
      status: 'accepted',
      disposition: 'terminal_accepted',
    });

    expect((await stopServer(server)).code).toBe(0);
    server = await startServerProcess({ env });
    const replay = await post(server.baseUrl, body);
    expect(replay).toEqual(first);
    expect(Buffer.from(replay.text).equals(Buffer.from(first.text))).toBe(true);
    await stopServer(server);
  });

  /**
   * Holds a live command on a spawned replica at `phase`, kills that replica with SIGKILL, and returns
   * what it was answering.
   */
  async function killMidSend(phase: 'send_started' | 'sent', requestId: string) {
    const replica = await startServerProcess({ env: { DATABASE_URL: observer.databaseUrl, PARLEY_TEST_PAUSE_AT: `command.${phase}` } });
    const fixture = await createRunningSession(observer);
    const pendingId = await ask(observer, fixture.sessionId, [databaseQuestion()]);
    const body = answerRequest(fixture.sessionId, await decisionRefOf(observer, fixture.sessionId), { requestId });
    const inFlight = post(replica.baseUrl, body).then(
      () => 'answered',
      () => 'connection lost',
    );
    if (phase === 'send_started') {
      await eventually(async () => ((await receiptOf(requestId))?.state === 'send_started' ? true : undefined), 15_000, 'send_started');
    } else {
      // ResolveBundle has returned once the claim's delivery (the queued resume) and its event are written.
      await eventually(async () => ((await winners(pendingId)).events === 1 && (await winners(pendingId)).resumes === 1 ? true : undefined), 15_000, 'the replica’s send');
    }
    expect((await killServer(replica)).signal).toBe('SIGKILL');
    expect(await inFlight).toBe('connection lost');
    expect((await receiptOf(requestId))?.state).toBe('send_started');
    return { fixture, pendingId, body };
  }

  it('kill -9 between send_started and the send: uncertain once the lease expires, never resent; the bundle keeps exactly one winner', async () => {
    const { pendingId, body } = await killMidSend('send_started', 'killed-before-send');
    // While the dead replica's lease lives, the retry is told the request is in progress.
    expect(JSON.parse((await command(observer, body)).text)).toMatchObject({ status: 'pending', disposition: 'in_progress' });
    observer.app.get(CommandClock).now = () => new Date(Date.now() + LEASE_MS + 1_000);

    const uncertain = await command(observer, body);
    expect(uncertain.httpStatus).toBe(500);
    expect(uncertain.body).toMatchObject({ ok: false, status: 'request_state_uncertain', disposition: 'terminal_uncertain', request_id: 'killed-before-send' });
    expect(await receiptOf('killed-before-send')).toEqual({ state: 'uncertain', status: 'request_state_uncertain', envelope: uncertain.text });
    expect((await command(observer, body)).text).toBe(uncertain.text);
    // Never resent: the bundle is still pending; the one winner is whoever answers it next.
    expect(await bundleOf(pendingId)).toEqual([{ status: 'pending', response: null }]);
    const rest = await request(observer.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .send({ answers: [{ question_id: 'db', selected_options: ['postgres'], custom_text: '' }] })
      .expect(200);
    expect(rest.body).toMatchObject({ claimed: true, status: 'answered' });
    expect((await command(observer, body)).text).toBe(uncertain.text);
    expect(await bundleOf(pendingId)).toEqual([{ status: 'answered', response: { question_id: 'db', selected_options: ['postgres'], custom_text: '' } }]);
    await eventually(async () => ((await winners(pendingId)).events === 1 ? true : undefined));
    expect(await winners(pendingId)).toEqual({ events: 1, resumes: 1 });
  });

  it('kill -9 after the claim, before accepted: uncertain (not accepted, not resent); its claim stays the one winner', async () => {
    const { pendingId, body } = await killMidSend('sent', 'killed-after-send');
    const sent = { question_id: 'db', selected_options: ['sqlite'], custom_text: '' };
    expect(await bundleOf(pendingId)).toEqual([{ status: 'answered', response: sent }]);
    observer.app.get(CommandClock).now = () => new Date(Date.now() + LEASE_MS + 1_000);

    const uncertain = await command(observer, body);
    expect(uncertain.body).toMatchObject({ ok: false, status: 'request_state_uncertain', disposition: 'terminal_uncertain' });
    expect((await command(observer, body)).text).toBe(uncertain.text);
    const rest = await request(observer.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .send({ answers: [{ question_id: 'db', selected_options: ['postgres'], custom_text: '' }] })
      .expect(200);
    expect(rest.body).toMatchObject({ claimed: false, status: 'answered', response: { answers: [sent] } });
    expect(await bundleOf(pendingId)).toEqual([{ status: 'answered', response: sent }]);
    expect(await winners(pendingId)).toEqual({ events: 1, resumes: 1 });
  });
});
