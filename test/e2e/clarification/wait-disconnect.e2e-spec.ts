/**
 * A `/wait` whose client goes away while its authorize read is still running parks nothing — no
 * waiter, no presence row — so an answer given afterwards resumes the agent (a queued prompt) instead
 * of being handed to a connection that no longer exists: nothing is lost.
 */
import http from 'node:http';
import { jest } from '@jest/globals';
import request from 'supertest';
import { BundleReadService, WaiterStore } from '#clarification';
import { BundleWaitService } from '#clarification/testing';
import { DetachedReply } from '#common';
import { startApp, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { freshBundle } from '../../support/fixtures.js';
import { holdCalls } from '../../support/hold-calls.js';

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

describe('a /wait abandoned before it was parked', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await t.close();
  });

  const rowsOf = async (sql: string, id: string) => (await t.db.query(sql, [id])).rows.length;

  it('a client gone during the authorize read leaves no waiter and no presence; the answer then resumes the agent', async () => {
    const { pendingId, sessionId, agentToken } = await freshBundle(t);
    const { calls: reads, release } = holdCalls(t.app.get(BundleReadService), 'authorizeBundle');
    const waits = jest.spyOn(t.app.get(BundleWaitService), 'wait');
    const closed = jest.spyOn(DetachedReply.prototype, 'closed');

    // A connection of its own, closed by the client while the server still reads the bundle.
    const waiting = http.get(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`, { agent: false, headers: { authorization: `Bearer ${agentToken}` } });
    waiting.on('error', () => undefined);
    await eventually(() => (reads.mock.calls.length === 1 ? true : undefined), 10_000, 'the authorize read');
    waiting.destroy();
    await eventually(() => (closed.mock.calls.length === 1 ? true : undefined), 10_000, 'the server seeing the client go');
    release();

    expect(await (waits.mock.results[0]?.value as Promise<unknown>)).toBeUndefined();
    expect(t.app.get(WaiterStore).hasAgent(pendingId)).toBe(false);
    expect(await rowsOf(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, pendingId)).toBe(0);

    const answered = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS }).expect(200);
    expect(answered.body).toMatchObject({ claimed: true, status: 'answered' });
    expect(await rowsOf(`SELECT 1 FROM task_session_messages WHERE task_session_id = $1 AND type = 'resume_prompt'`, sessionId)).toBe(1);
  });
});
