/**
 * Routing's quorum (rules Q2, Q3): with required_answers N > 1 each eligible person's answer is a vote,
 * recorded once; the bundle resolves exactly once — answered when N people voted the same normalized
 * answer, rejected at the first rejection (its reason kept) or at the first vote that differs (reason
 * "answerers disagreed"). A vote that does not resolve is told only how far the quorum is; the same
 * vote again is replayed, a different one is 409 CONFLICT "already voted"; once resolved every voter is
 * told the final resolution, as a loser is. The agent is resumed once (a queued resume prompt here).
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { gql } from '../../support/graphql.js';
import { ADMIN, askRouted, ONE_QUESTION, PICK, respondAs, team, type Team } from '../../support/routing.js';

type Member = Team['members'][number];

describe('routing: quorum', () => {
  let t: TestApp;
  let crew: Team;
  let alice: Member;
  let bob: Member;
  let carol: Member;
  let round = 0;

  /** A fresh routed bundle on its own session (one active bundle per session keeps the rounds apart). */
  async function quorumBundle(required: number, answerers?: Member[]): Promise<string> {
    round += 1;
    const session = await request(t.baseUrl)
      .post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`)
      .set('authorization', `Bearer ${crew.owner.token}`)
      .send({})
      .expect(201);
    await request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id as string}`).set('authorization', `Bearer ${crew.owner.token}`).send({ state: 'RUNNING' }).expect(200);
    const routing = { required_answers: required, ...(answerers ? { answerers: { user_ids: answerers.map((m) => m.id) } } : {}) };
    const asked = await askRouted(t, { ...crew, fixture: { ...crew.fixture, sessionId: session.body.id as string } }, [{ ...ONE_QUESTION[0], prompt: `round ${round}` }], routing).expect(200);
    return asked.body.pending_id as string;
  }

  const resumePrompts = async (pendingId: string) =>
    (await t.db.query(`SELECT 1 FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`, [pendingId])).rows.length;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    crew = await team(t, 3, 'quorum');
    [alice, bob, carol] = crew.members as [Member, Member, Member];
  });

  afterAll(async () => {
    await t.close();
  });

  it('two identical votes answer; the first is told only how far the quorum is; a replay is replayed', async () => {
    const pendingId = await quorumBundle(2, [alice, bob, carol]);
    const first = await respondAs(t, alice.token, pendingId, { answers: PICK('postgres', ' same ') }).expect(200);
    expect(first.body).toEqual({
      success: true,
      claimed: false,
      status: 'pending',
      receipt: null,
      response: { answers: [], rejected: false, reject_reason: '' },
      vote: { replayed: false, votes: 1, required_answers: 2 },
    });
    const replayed = await respondAs(t, alice.token, pendingId, { answers: PICK('postgres', 'same') }).expect(200);
    expect(replayed.body.vote).toEqual({ replayed: true, votes: 1, required_answers: 2 });
    const pending = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${bob.token}`).expect(200);
    expect(pending.body.status).toBe('pending');
    expect(pending.body.votes).toEqual([{ user: { kind: 'user', user_id: alice.id, name: alice.name }, surface: 'rest', at: expect.any(String) }]);
    expect(await resumePrompts(pendingId)).toBe(0);

    const second = await gql<{ answerQuestion: { claimed: boolean; status: string; vote: unknown; response: { answers: { selectedOptions: string[]; customText: string }[] } } }>(
      t,
      `mutation($p: String!) { answerQuestion(pendingId: $p, answers: [{questionId: "db", selectedOptions: ["postgres"], customText: "same"}]) { claimed status vote { votes } response { answers { selectedOptions customText } } } }`,
      { p: pendingId },
      bob.token,
    );
    expect(second.body.data?.answerQuestion).toEqual({ claimed: true, status: 'answered', vote: null, response: { answers: [{ selectedOptions: ['postgres'], customText: 'same' }] } });
    expect(await resumePrompts(pendingId)).toBe(1);

    // Every voter, and anyone later, is told the final resolution — as a loser is.
    const told = await respondAs(t, alice.token, pendingId, { answers: PICK('postgres', 'same') }).expect(200);
    expect(told.body).toMatchObject({ claimed: false, status: 'answered', response: { answers: PICK('postgres', 'same') } });
    const late = await respondAs(t, carol.token, pendingId, { answers: PICK('sqlite') }).expect(200);
    expect(late.body).toMatchObject({ claimed: false, status: 'answered', response: { answers: PICK('postgres', 'same') } });
    expect(await resumePrompts(pendingId)).toBe(1);

    const resolved = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${carol.token}`).expect(200);
    expect(resolved.body.status).toBe('answered');
    expect(resolved.body.votes).toEqual([
      { user: { kind: 'user', user_id: alice.id, name: alice.name }, surface: 'rest', at: expect.any(String), rejected: false, answers: PICK('postgres', 'same') },
      { user: { kind: 'user', user_id: bob.id, name: bob.name }, surface: 'graphql', at: expect.any(String), rejected: false, answers: PICK('postgres', 'same') },
    ]);
    const audit = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}/audit`).set('authorization', ADMIN).expect(200);
    const outcomes = (audit.body.attempts as { outcome: string; surface: string; caller: { user_id: string } }[]).map((a) => [a.outcome, a.surface, a.caller.user_id]);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        ['voted', 'rest', alice.id],
        ['won', 'graphql', bob.id],
      ]),
    );
  });

  it('the same voter sending a different answer is 409 CONFLICT "already voted", and changes nothing', async () => {
    const pendingId = await quorumBundle(2, [alice, bob]);
    await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    const changed = await respondAs(t, alice.token, pendingId, { answers: PICK('sqlite') });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('CONFLICT');
    expect(changed.body.error).toMatch(/^already voted/);
    const rejecting = await respondAs(t, alice.token, pendingId, { rejected: true, reject_reason: 'changed my mind' });
    expect(rejecting.status).toBe(409);
    const votes = await t.db.query(`SELECT voter FROM clarification_votes WHERE pending_id = $1`, [pendingId]);
    expect(votes.rows).toHaveLength(1);
    const state = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', ADMIN).expect(200);
    expect(state.body.status).toBe('pending');
  });

  it('a rejection vetoes at once, its reason kept; the agent is told once', async () => {
    const pendingId = await quorumBundle(3, [alice, bob, carol]);
    await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    const veto = await respondAs(t, bob.token, pendingId, { rejected: true, reject_reason: 'not now' }).expect(200);
    expect(veto.body).toMatchObject({ claimed: true, status: 'rejected', response: { rejected: true, reject_reason: 'not now', answers: [] } });
    const after = await respondAs(t, carol.token, pendingId, { answers: PICK('postgres') }).expect(200);
    expect(after.body).toMatchObject({ claimed: false, status: 'rejected' });
    const audit = await t.db.query<{ reject_reason: string }>(`SELECT reject_reason FROM clarification_audit WHERE pending_id = $1 AND outcome = 'won'`, [pendingId]);
    expect(audit.rows).toEqual([{ reject_reason: 'not now' }]);
    const events = await t.db.query<{ type: string }>(`SELECT type FROM question_events WHERE pending_id = $1 ORDER BY id`, [pendingId]);
    expect(events.rows.map((row) => row.type)).toEqual(['ASKED', 'REJECTED']);
  });

  it('the first vote that differs rejects with "answerers disagreed"', async () => {
    const pendingId = await quorumBundle(2);
    await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    const differs = await respondAs(t, carol.token, pendingId, { answers: PICK('sqlite') }).expect(200);
    expect(differs.body).toMatchObject({ claimed: true, status: 'rejected', response: { rejected: true, reject_reason: 'answerers disagreed' } });
    const event = await t.db.query<{ payload: { response?: { reject_reason?: string } } }>(`SELECT payload FROM question_events WHERE pending_id = $1 AND type = 'REJECTED'`, [pendingId]);
    expect(event.rows).toHaveLength(1);
    const told = await respondAs(t, alice.token, pendingId, { answers: PICK('postgres') }).expect(200);
    expect(told.body).toMatchObject({ claimed: false, status: 'rejected' });
  });

  it('without answerers, N distinct people who see it must agree (the owner counts as one)', async () => {
    const pendingId = await quorumBundle(2);
    await respondAs(t, crew.owner.token, pendingId, { answers: PICK('duckdb') }).expect(200);
    const stranger = await respondAs(t, crew.stranger.token, pendingId, { answers: PICK('duckdb') });
    expect(stranger.status).toBe(404);
    const done = await respondAs(t, carol.token, pendingId, { answers: PICK('duckdb') }).expect(200);
    expect(done.body).toMatchObject({ claimed: true, status: 'answered' });
    expect(await resumePrompts(pendingId)).toBe(1);
  });
});
