/**
 * Contention, with rules R2/R2a/R3: answers that reach a bundle while this process
 * is claiming it share its authorize read, wait for that claim and replay its final answer (or re-read, if it did not win), instead of each queueing on the session's lock and
 * running the claim statement in turn. The claim stays the one claim: exactly one winner, and every
 * loser is told the winner's answer once it is final; a claim that fails lets a waiting answer claim.
 */
import { jest } from '@jest/globals';
import request from 'supertest';
import { BundleReadService, ResolveBundleService } from '#clarification';
import { BundleRepository, DeliveryService } from '#clarification/testing';
import { startApp, type TestApp } from '../support/app.js';
import { eventually } from '../support/eventually.js';
import { freshBundle } from '../support/fixtures.js';
import { holdCalls } from '../support/hold-calls.js';

/** Listed out of D2 order: what a loser is told is the normalized answer the rows record. */
const ANSWER = (choice: string) => ({
  answers: [
    { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '  spaced  ' },
    { question_id: 'db', selected_options: [choice], custom_text: '' },
  ],
});
const CHOICES = ['pg', 'sqlite'];

describe('answers arriving during a claim wait for it (R2a, R3)', () => {
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

  /** Holds every claim until released; counts the claims and the authorize reads that came back. */
  function holdClaims(failFirst = false) {
    const delivery = t.app.get(DeliveryService);
    const reader = t.app.get(BundleReadService);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const claim = delivery.claimAndDeliver.bind(delivery);
    const authorize = reader.authorizeBundle.bind(reader);
    let authorized = 0;
    const claims = jest.spyOn(delivery, 'claimAndDeliver').mockImplementation(async (...args) => {
      const first = claims.mock.calls.length === 1;
      await gate;
      if (failFirst && first) throw new Error('the first claim failed');
      return claim(...args);
    });
    jest.spyOn(reader, 'authorizeBundle').mockImplementation(async (...args) => {
      const bundle = await authorize(...args);
      authorized += 1;
      return bundle;
    });
    return { claims, release, authorized: () => authorized };
  }

  it('eight concurrent answers: one authorize read and one claim reach the database, the seven others replay the winner without reading again', async () => {
    const { pendingId } = await freshBundle(t);
    const resolver = t.app.get(ResolveBundleService);
    const bundles = t.app.get(BundleRepository);
    const started = jest.spyOn(resolver, 'resolve');
    const claims = jest.spyOn(t.app.get(DeliveryService), 'claimAndDeliver');
    const rereads = jest.spyOn(bundles, 'findBundleState');
    const { calls: authorizeReads, release } = holdCalls(bundles, 'findAuthorizedBundle');
    const responses = Array.from({ length: 8 }, (_, i) =>
      request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(ANSWER(CHOICES[i % 2])),
    ).map((pending) => pending.then((res) => res));
    try {
      await eventually(() => (started.mock.calls.length === 8 ? true : undefined), 10_000, 'eight answers under way');
      expect(authorizeReads).toHaveBeenCalledTimes(1);
    } finally {
      release();
    }
    const bodies = (await Promise.all(responses)).map((res) => {
      expect(res.status).toBe(200);
      return res.body as { claimed: boolean };
    });
    expect(authorizeReads).toHaveBeenCalledTimes(1);
    expect(claims).toHaveBeenCalledTimes(1);
    expect(rereads).not.toHaveBeenCalled();
    expect(bodies.filter((body) => body.claimed)).toHaveLength(1);
    const late = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(ANSWER('pg')).expect(200);
    expect(late.body.claimed).toBe(false);
    expect(late.body.response.answers[0].question_id).toBe('db');
    expect(late.body.response.answers[1].custom_text).toBe('spaced');
    for (const loser of bodies.filter((body) => !body.claimed)) expect(loser).toEqual(late.body);
  });

  it('an answer joining a read that says "not found" reads for itself', async () => {
    const { pendingId } = await freshBundle(t);
    const bundles = t.app.get(BundleRepository);
    const findAuthorized = bundles.findAuthorizedBundle.bind(bundles);
    const resolver = t.app.get(ResolveBundleService);
    const started = jest.spyOn(resolver, 'resolve');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reads = jest.spyOn(bundles, 'findAuthorizedBundle').mockImplementationOnce(async (id, reach) => {
      await gate;
      return findAuthorized(`${id}-not-yet`, reach);
    });
    const responses = [ANSWER('pg'), ANSWER('sqlite')].map((body) =>
      request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send(body).then((res) => res),
    );
    try {
      await eventually(() => (started.mock.calls.length === 2 ? true : undefined), 10_000, 'two answers under way');
    } finally {
      release();
    }
    const statuses = (await Promise.all(responses)).map((res) => res.status).sort();
    expect(statuses).toEqual([200, 404]);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('a claim that fails lets an answer that waited for it claim: still exactly one winner', async () => {
    const { pendingId } = await freshBundle(t);
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
