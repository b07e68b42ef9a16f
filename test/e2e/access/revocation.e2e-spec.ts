import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { eventually } from '../../support/eventually.js';
import { browserHeaders, createRunningSession, signIn, TWO_QUESTIONS } from '../../support/fixtures.js';
import { subscribe } from '../../support/graphql.js';

/**
 * A revoked token (or an ended browser session) keeps nothing it
 * already opened — an open long poll ends with 401 instead of receiving the answer, an open
 * subscription ends instead of receiving the ANSWERED event — on the replica where it was revoked
 * and on every other one.
 */

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: 'secret answer text' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

interface Token {
  id: string;
  token: string;
}

describe('revocation bites what is already open', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startApp({ config: { authMode: 'enabled', waitTimeoutMs: 30_000 } });
    b = await startApp({ databaseUrl: a.databaseUrl, config: { authMode: 'enabled', waitTimeoutMs: 30_000 } });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  async function userWithToken(name: string): Promise<{ userId: string; first: Token; second: Token }> {
    const user = await request(a.baseUrl).post('/api/v1/admin/users').set('authorization', ADMIN).send({ name }).expect(201);
    const issue = async () =>
      (await request(a.baseUrl).post(`/api/v1/admin/users/${user.body.id}/tokens`).set('authorization', ADMIN).send({}).expect(201)).body as Token;
    return { userId: user.body.id as string, first: await issue(), second: await issue() };
  }

  async function bundleOf(bearer: string): Promise<string> {
    const fixture = await createRunningSession(a, { bearer });
    const asked = await request(a.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${bearer}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    return asked.body.pending_id as string;
  }

  /** A long poll (a dashboard's), once it has attached on `app`. */
  async function openWait(app: TestApp, pendingId: string, headers: Record<string, string>) {
    const result = fetch(`${app.baseUrl}/api/v1/clarification/${pendingId}/wait`, { headers }).then(async (res) => ({
      status: res.status,
      text: await res.text(),
    }));
    await eventually(() => (app.app.get(WaiterStore).waiterCount(pendingId) > 0 ? true : undefined), 5_000, 'the wait attaching');
    return { result };
  }

  it.each([
    ['on the replica that holds it', () => a],
    ['from another replica', () => b],
  ])('an open /wait of a revoked token ends with 401 %s, and the answer never reaches it', async (_where, revoker) => {
    const { first, second } = await userWithToken(`dash-${Math.random()}`);
    const pendingId = await bundleOf(second.token);
    const { result: wait } = await openWait(a, pendingId, { authorization: `Bearer ${first.token}` });
    await request(revoker().baseUrl).post(`/api/v1/admin/tokens/${first.id}/revoke`).set('authorization', ADMIN).expect(200);
    const ended = await wait;
    expect(ended.status).toBe(401);
    expect(ended.text).not.toContain('secret answer text');
    // The bundle is untouched and still answerable by a valid credential.
    await request(a.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${second.token}`).send({ answers: ANSWERS }).expect(200);
  });

  it('an open /wait of a browser session ends with 401 when the browser signs out', async () => {
    const { second } = await userWithToken(`browser-${Math.random()}`);
    const pendingId = await bundleOf(second.token);
    const cookie = await signIn(a, second.token);
    const { result: wait } = await openWait(a, pendingId, { cookie });
    await request(a.baseUrl).delete('/api/v1/auth/session').set(browserHeaders(a, cookie)).expect(200);
    expect((await wait).status).toBe(401);
  });

  it('an open subscription of a revoked token ends, and the ANSWERED event never reaches it', async () => {
    const { first, second } = await userWithToken(`sub-${Math.random()}`);
    const pendingId = await bundleOf(second.token);
    const subscription = subscribe<{ questionEvents: { type: string; pendingId: string } }>(
      a,
      `subscription { questionEvents { type pendingId response { answers { customText } } } }`,
      { connectionParams: { authorization: `Bearer ${first.token}` } },
    );
    try {
      await subscription.connected;
      // Live: another ASKED event reaches it while its token is valid. (The first bundle's ASKED event
      // may arrive too: it was committed just before the subscription, and the feed can be behind.)
      const other = await bundleOf(second.token);
      await eventually(() => (subscription.events.some((event) => event.questionEvents.pendingId === other) ? true : undefined), 5_000, 'the other bundle’s ASKED event');

      await request(b.baseUrl).post(`/api/v1/admin/tokens/${first.id}/revoke`).set('authorization', ADMIN).expect(200);
      await eventually(() => (subscription.completed || subscription.error !== undefined ? true : undefined), 5_000, 'the subscription ending');
      await request(a.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${second.token}`).send({ answers: ANSWERS }).expect(200);
      expect(new Set(subscription.events.map((event) => event.questionEvents.type))).toEqual(new Set(['ASKED']));
    } finally {
      await subscription.close();
    }
  });
});
