/**
 * Issue 11 target 2 (contention) with spec R2/R2a/R3: answers that reach a bundle while this process
 * is claiming it wait for that claim and replay its final answer (or re-read, if it did not win), instead of each queueing on the session's lock and
 * running the claim statement in turn. The claim stays the one claim: exactly one winner, and every
 * loser is told the winner's answer once it is final; a claim that fails lets a waiting answer claim.
 */
import { jest } from '@jest/globals';
import request from 'supertest';
import { BundleRepository, ClarificationService, DeliveryService } from '#clarification';
import { startApp, type TestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { createRunningSession, TWO_QUESTIONS } from './support/fixtures.js';

/** Listed out of D2 order: what a loser is told is the normalized answer the rows record. */
const ANSWER = (choice: string) => ({
  answers: [
    { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '  spaced  ' },
    { question_id: 'db', selected_options: [choice], custom_text: '' },
  ],
});
const CHOICES = ['pg', 'sqlite'];

describe('answers arriving during a claim wait for it (issue 11 §2, R2a, R3)', () => {
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

  async function freshBundle(): Promise<string> {
    const fixture = await createRunningSession(t);
    const asked = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS }).expect(200);
    return asked.body.pending_id as string;
  }

  /** Holds every claim until released; counts the claims and the authorize reads that came back. */
  function holdClaims(failFirst = false) {
    const delivery = t.app.get(DeliveryService);
    const clarifications = t.app.get(ClarificationService);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const claim = delivery.claimAndDeliver.bind(delivery);
    const authorize = clarifications.authorizeBundle.bind(clarifications);
    let authorized = 0;
    const claims = jest.spyOn(delivery, 'claimAndDeliver').mockImplementation(async (...args) => {
      const first = claims.mock.calls.length === 1;
      await gate;
      if (failFirst && first) throw new Error('the first claim failed');
      return claim(...args);
    });
    jest.spyOn(clarifications, 'authorizeBundle').mockImplementation(async (...args) => {
      const bundle = await authorize(...args);
      authorized += 1;
      return bundle;
    });
    return { claims, release, authorized: () => authorized };
  }

  it('eight concurrent answers: one claim reaches the database, the seven others wait and replay the winner without reading it again', async () => {
    const pendingId = await freshBundle();
    const held = holdClaims();
    const reads = jest.spyOn(t.app.get(BundleRepository), 'findBundle');
    const responses = Array.from({ length: 8 }, (_, i) =>
      request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(ANSWER(CHOICES[i % 2])),
    ).map((pending) => pending.then((res) => res));
    try {
      await eventually(() => (held.authorized() === 8 ? true : undefined), 10_000, 'eight authorize reads');
      expect(held.claims).toHaveBeenCalledTimes(1);
    } finally {
      held.release();
    }
    const bodies = (await Promise.all(responses)).map((res) => {
      expect(res.status).toBe(200);
      return res.body as { claimed: boolean; response: { answers: Array<{ selected_options: string[] }> } };
    });
    expect(held.claims).toHaveBeenCalledTimes(1);
    const winners = bodies.filter((body) => body.claimed);
    expect(winners).toHaveLength(1);
    expect(reads).not.toHaveBeenCalled();
    const late = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(ANSWER('pg')).expect(200);
    expect(late.body.claimed).toBe(false);
    expect(late.body.response.answers[0].question_id).toBe('db');
    expect(late.body.response.answers[1].custom_text).toBe('spaced');
    for (const loser of bodies.filter((body) => !body.claimed)) expect(loser).toEqual(late.body);
  });

  it('a claim that fails lets an answer that waited for it claim: still exactly one winner', async () => {
    const pendingId = await freshBundle();
    const held = holdClaims(true);
    const first = request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(ANSWER('pg')).then((res) => res);
    let second: Promise<request.Response> | undefined;
    try {
      await eventually(() => (held.claims.mock.calls.length === 1 ? true : undefined), 10_000, 'the first claim');
      second = request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(ANSWER('sqlite')).then((res) => res);
      await eventually(() => (held.authorized() === 2 ? true : undefined), 10_000, 'the second authorize read');
      expect(held.claims).toHaveBeenCalledTimes(1);
    } finally {
      held.release();
    }
    const [failed, won] = await Promise.all([first, second]);
    expect(failed.status).toBe(500);
    expect(won.status).toBe(200);
    expect(won.body).toMatchObject({ claimed: true, status: 'answered' });
    expect(held.claims).toHaveBeenCalledTimes(2);
  });
});
