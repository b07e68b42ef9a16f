/**
 * What a receipt proves, read as an executor who trusts nothing but the server: who asked (`asked_by`),
 * what was chosen (`selections`), which bundle (`sub`); an expectation that does not hold is
 * `expectation_mismatch`; a receipt is spent at most once (`/redeem`, across replicas), only by the
 * identity that asked; `surface` is the server's word, not a header's.
 */
import { Parley } from '@parley/client';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { signIn } from '../../support/fixtures.js';
import { team, type Team } from '../../support/routing.js';
import { refuse, startWebhookReceiver } from '../../support/webhook-receiver.js';

const ACTION = { name: 'deploy', arguments: { env: 'prod', replicas: 3 } };
const MAY_I = [{ id: 'go', prompt: 'May I deploy?', options: [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }] }];

describe('receipts an executor can trust', () => {
  let t: TestApp;
  let replica: TestApp;
  let crew: Team;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    replica = await startApp({ config: { authMode: 'enabled' }, databaseUrl: t.databaseUrl });
    crew = await team(t, 1, 'trust');
  });
  afterAll(async () => {
    await replica.close();
    await t.close();
  });

  const bearer = (token: string) => `Bearer ${token}`;

  /** The agent asks (its agent token) with the action; `answerer` answers `option`; returns the receipt. */
  async function decided(option: 'yes' | 'no', answer: (pendingId: string, body: unknown) => request.Test): Promise<{ pendingId: string; receipt: string }> {
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', bearer(crew.fixture.agentToken))
      .send({ session_id: crew.fixture.sessionId, questions: MAY_I, action: ACTION, context: `${option}-${Math.random()}` })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    const answered = await answer(pendingId, { answers: [{ question_id: 'go', selected_options: [option], custom_text: 'free text stays out' }] }).expect(200);
    return { pendingId, receipt: answered.body.receipt as string };
  }
  const asOwner = (pendingId: string, body: unknown) =>
    request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', bearer(crew.owner.token)).send(body as object);
  const verify = (body: unknown) => request(t.baseUrl).post('/api/v1/receipts/verify').send(body as object);
  const redeem = (app: TestApp, authorization: string | undefined, body: unknown) => {
    const req = request(app.baseUrl).post('/api/v1/receipts/redeem');
    if (authorization) req.set('authorization', authorization);
    return req.send(body as object);
  };

  it('names who asked and what was chosen (never free text)', async () => {
    const { pendingId, receipt } = await decided('no', asOwner);
    const verdict = (await verify({ receipt, action: ACTION }).expect(200)).body;
    expect(verdict.valid).toBe(true);
    expect(verdict.claims).toMatchObject({ sub: pendingId, outcome: 'answered', selections: { go: ['no'] }, asked_by: { kind: 'agent', id: crew.fixture.sessionId } });
    expect(JSON.stringify(verdict.claims)).not.toContain('free text');
  });

  it('a "No" fails the executor check that expects a "Yes": expectation_mismatch naming what did not hold', async () => {
    const { pendingId, receipt } = await decided('no', asOwner);
    const agent = { kind: 'agent', id: crew.fixture.sessionId };
    const expectYes = { pending_id: pendingId, outcome: 'answered', selections: { go: ['yes'] }, asked_by: agent };
    expect((await verify({ receipt, action: ACTION, expect: expectYes }).expect(200)).body).toEqual({ valid: false, reason: 'expectation_mismatch', mismatch: ['selections.go'] });
    const wrongAsker = { ...expectYes, selections: { go: ['no'] }, asked_by: { kind: 'user', id: crew.members[0].id }, pending_id: 'another' };
    expect((await verify({ receipt, action: ACTION, expect: wrongAsker }).expect(200)).body).toEqual({ valid: false, reason: 'expectation_mismatch', mismatch: ['pending_id', 'asked_by'] });
    expect((await verify({ receipt, action: ACTION, expect: { ...expectYes, selections: { go: ['no'] } } }).expect(200)).body.valid).toBe(true);
    // A redemption with the same expectation spends nothing.
    expect((await redeem(t, bearer(crew.fixture.agentToken), { receipt, action: ACTION, expect: expectYes }).expect(200)).body).toEqual({ redeemed: false, reason: 'expectation_mismatch', mismatch: ['selections.go'] });
    expect((await redeem(t, bearer(crew.fixture.agentToken), { receipt, action: ACTION }).expect(200)).body.redeemed).toBe(true);
  });

  it('the client checks the same expectation offline, and redeems through the server once', async () => {
    const { pendingId, receipt } = await decided('no', asOwner);
    const agent = new Parley({ url: t.baseUrl, token: crew.fixture.agentToken });
    const expectYes = { pending_id: pendingId, outcome: 'answered' as const, selections: { go: ['yes'] }, asked_by: { kind: 'agent' as const, id: crew.fixture.sessionId } };
    expect(await agent.verifyReceipt(receipt, { action: ACTION, expect: expectYes })).toEqual({ valid: false, reason: 'expectation_mismatch', mismatch: ['selections.go'] });
    const expectNo = { ...expectYes, selections: { go: ['no'] } };
    expect(await agent.verifyReceipt(receipt, { action: ACTION, expect: expectNo })).toMatchObject({ valid: true });
    expect(await agent.redeemReceipt(receipt, { action: ACTION, expect: expectNo })).toMatchObject({ redeemed: true, claims: { sub: pendingId } });
    expect(await agent.redeemReceipt(receipt, { action: ACTION, expect: expectNo })).toEqual({ redeemed: false, reason: 'already_redeemed' });
  });

  it('a bad expectation is a 400 naming the field', async () => {
    const { receipt } = await decided('yes', asOwner);
    expect((await verify({ receipt, expect: { outcome: 'maybe' } }).expect(400)).body.error).toMatch(/expect\.outcome/);
    expect((await verify({ receipt, expect: { selections: { go: 'yes' } } }).expect(400)).body.error).toMatch(/expect\.selections\.go/);
    expect((await verify({ receipt, expect: { who: 1 } }).expect(400)).body.error).toMatch(/expect\.who/);
    expect((await redeem(t, bearer(crew.fixture.agentToken), { receipt }).expect(400)).body.error).toMatch(/action/);
  });

  it('only the identity that asked may spend it; anyone else who holds it is refused and spends nothing', async () => {
    const { receipt } = await decided('yes', asOwner);
    const body = { receipt, action: ACTION };
    await redeem(t, undefined, body).expect(401);
    // The answerer (a member who sees the session), and an admin, hold the receipt but did not ask.
    expect((await redeem(t, bearer(crew.members[0].token), body).expect(403)).body.code).toBe('FORBIDDEN');
    await redeem(t, 'Bearer test-admin-token-0123456789abcdef', body).expect(403);
    const other = await request(t.baseUrl).post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`).set('authorization', bearer(crew.owner.token)).send({}).expect(201);
    await redeem(t, bearer(other.body.agent_token as string), body).expect(403);
    // The session's opener may (the agent asked on the session the opener opened); then it is spent for everyone.
    const spent = (await redeem(t, bearer(crew.owner.token), body).expect(200)).body;
    expect(spent).toMatchObject({ redeemed: true, claims: { outcome: 'answered', selections: { go: ['yes'] } } });
    expect((await redeem(t, bearer(crew.fixture.agentToken), body).expect(200)).body).toEqual({ redeemed: false, reason: 'already_redeemed' });
    // A different action is not this receipt's.
    const fresh = await decided('yes', asOwner);
    expect((await redeem(t, bearer(crew.fixture.agentToken), { receipt: fresh.receipt, action: { ...ACTION, arguments: { env: 'staging' } } }).expect(200)).body).toEqual({ redeemed: false, reason: 'action_mismatch' });
  });

  it('is redeemed exactly once when two replicas are asked at once, over parallel connections', async () => {
    const { pendingId, receipt } = await decided('yes', asOwner);
    const attempts = Array.from({ length: 16 }, (_, index) => redeem(index % 2 === 0 ? t : replica, bearer(crew.fixture.agentToken), { receipt, action: ACTION }));
    const results = (await Promise.all(attempts)).map((res) => res.body as { redeemed: boolean; reason?: string });
    expect(results.filter((result) => result.redeemed)).toHaveLength(1);
    expect(results.filter((result) => !result.redeemed).every((result) => result.reason === 'already_redeemed')).toBe(true);
    const { rows } = await t.db.query(`SELECT redeemed_by FROM receipt_redemptions WHERE pending_id = $1`, [pendingId]);
    expect(rows).toEqual([{ redeemed_by: `agent:${crew.fixture.sessionId}` }]);
  });

  it('a rolled-back answer\'s receipt is revoked: the resume receiver that refused it holds a receipt that never verifies or redeems', async () => {
    const receiver = await startWebhookReceiver(refuse);
    try {
      const session = await request(t.baseUrl)
        .post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`)
        .set('authorization', bearer(crew.owner.token))
        .send({ resume_url: receiver.url })
        .expect(201);
      const agent = bearer(session.body.agent_token as string);
      await request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`).set('authorization', agent).send({ state: 'RUNNING' }).expect(200);
      const asked = await request(t.baseUrl).post('/api/v1/clarification/request').set('authorization', agent).send({ session_id: session.body.id, questions: MAY_I, action: ACTION }).expect(200);
      const pendingId = asked.body.pending_id as string;
      const failed = await asOwner(pendingId, { answers: [{ question_id: 'go', selected_options: ['yes'], custom_text: '' }] });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      const held = receiver.postsFor(pendingId)[0]?.body.receipt as string;
      expect(held).toEqual(expect.any(String));
      expect((await verify({ receipt: held, action: ACTION }).expect(200)).body).toEqual({ valid: false, reason: 'revoked' });
      expect((await redeem(t, agent, { receipt: held, action: ACTION }).expect(200)).body).toEqual({ redeemed: false, reason: 'revoked' });
      const bundle = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', agent).expect(200);
      expect(bundle.body.status).toBe('pending');
    } finally {
      await receiver.close();
    }
  });

  it('surface is the server\'s word: a header does not make a REST answer "web"; a browser session\'s cookie does', async () => {
    const viaHeader = await decided('yes', (pendingId, body) => asOwner(pendingId, body).set('x-parley-surface', 'web'));
    expect((await verify({ receipt: viaHeader.receipt }).expect(200)).body.claims.surface).toBe('rest');
    const cookie = await signIn(t, crew.owner.token);
    const viaCookie = await decided('yes', (pendingId, body) =>
      request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('cookie', cookie).set('origin', t.baseUrl).send(body as object),
    );
    expect((await verify({ receipt: viaCookie.receipt }).expect(200)).body.claims.surface).toBe('web');
  });
});
