/**
 * A mixed legacy bundle — some rows already terminal, some still pending (baseline D1/L12) — on the
 * current turn of a live session is active by the shared rule, so it is listed as pending and must be
 * answerable: the claim moves only its pending rows, the already-terminal rows keep their state, and
 * the winner is that claim (what a loser and every read report afterwards). Rows are seeded with SQL.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { type QuestionSpec, rowsOfPendingId, seedLiveBundle } from '../../support/bundles.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';
import { type Answer, type Envelope, type Outcome, submit, type Surface } from '../../support/surfaces.js';

const LEGACY_ANSWER: Answer = { question_id: 'q1', selected_options: ['q1_opt2'], custom_text: 'legacy' };

/** q1 terminal (answered with a response, or rejected), q2 pending, q3 without a status (pending too). */
function mixedRows(first: 'answered' | 'rejected'): QuestionSpec[] {
  return [{ status: first, ...(first === 'answered' ? { extra: { response: LEGACY_ANSWER } } : {}) }, {}, { status: null }];
}

function answersFrom(tag: string): Answer[] {
  return ['q1', 'q2', 'q3'].map((id) => ({ question_id: id, selected_options: [`${id}_opt1`], custom_text: tag }));
}

function resolved(outcome: Outcome): Envelope {
  if (outcome.kind !== 'resolved') throw new Error(`expected a resolution, got ${JSON.stringify(outcome)}`);
  return outcome.envelope;
}

describe('a mixed legacy bundle can be finished', () => {
  let t: TestApp;
  let mcp: McpConnection;

  beforeAll(async () => {
    t = await startApp();
    mcp = await connectMcp(t.baseUrl);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  const client = () => ({ baseUrl: t.baseUrl, mcp });

  it('is listed and read as pending, with no winner yet', async () => {
    const bundle = await seedLiveBundle(t.db, { questions: mixedRows('answered') });
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${bundle.pendingId}`).expect(200);
    expect(got.body).toMatchObject({ status: 'pending', response: null, resolved_by: null });
    const listed = await mcp.call('list_pending_questions_kandev', {});
    const ids = (listed.structured?.bundles as Array<{ pending_id: string }>).map((entry) => entry.pending_id);
    expect(ids).toContain(bundle.pendingId);
  });

  it('REST answers it: only the pending rows move, the terminal row keeps its state; a later MCP loser is told this claim', async () => {
    const bundle = await seedLiveBundle(t.db, { questions: mixedRows('rejected') });
    const [legacyBefore] = await rowsOfPendingId(t.db, bundle.pendingId);
    const submitted = answersFrom('from rest');

    const winner = resolved(await submit('rest', client(), bundle.pendingId, { kind: 'answer', answers: submitted }));
    // What the claim recorded: the answers of the rows it moved (q2, q3), in question order.
    const recorded = submitted.slice(1);
    expect(winner).toEqual({ claimed: true, status: 'answered', receipt: expect.any(String), response: { answers: recorded, rejected: false, reject_reason: '' } });

    const after = await rowsOfPendingId(t.db, bundle.pendingId);
    expect(after.map((row) => row.metadata.status)).toEqual(['rejected', 'answered', 'answered']);
    expect(after[0]).toEqual(legacyBefore);
    expect(after.slice(1).map((row) => row.metadata.response)).toEqual(recorded);

    const loser = resolved(await submit('mcp', client(), bundle.pendingId, { kind: 'answer', answers: answersFrom('from mcp') }));
    expect(loser).toEqual({ claimed: false, status: 'answered', receipt: expect.any(String), response: { answers: recorded, rejected: false, reject_reason: '' } });
    expect(await rowsOfPendingId(t.db, bundle.pendingId)).toEqual(after);

    const got = await request(t.baseUrl).get(`/api/v1/clarification/${bundle.pendingId}`).expect(200);
    expect(got.body).toMatchObject({ status: 'answered', response: { answers: recorded, rejected: false, reject_reason: '' } });
    expect(got.body.resolved_by).toMatchObject({ surface: 'rest' });
  });

  it('GraphQL rejects it; the legacy answer stays recorded, and a REST loser is told the rejection', async () => {
    const bundle = await seedLiveBundle(t.db, { questions: mixedRows('answered') });
    const winner = resolved(await submit('graphql', client(), bundle.pendingId, { kind: 'reject', reason: 'not now' }));
    expect(winner).toEqual({ claimed: true, status: 'rejected', receipt: expect.any(String), response: { answers: [], rejected: true, reject_reason: 'not now' } });

    const after = await rowsOfPendingId(t.db, bundle.pendingId);
    expect(after.map((row) => row.metadata.status)).toEqual(['answered', 'rejected', 'rejected']);
    expect(after[0]?.metadata.response).toEqual(LEGACY_ANSWER);

    const loser = resolved(await submit('rest', client(), bundle.pendingId, { kind: 'answer', answers: answersFrom('late') }));
    expect(loser).toEqual({ claimed: false, status: 'rejected', receipt: expect.any(String), response: { answers: [], rejected: true, reject_reason: '' } });
    const got = await request(t.baseUrl).get(`/api/v1/clarification/${bundle.pendingId}`).expect(200);
    expect(got.body).toMatchObject({ status: 'rejected', response: { answers: [], rejected: true } });
  });

  it('/wait parks on it and is answered with what the claim recorded', async () => {
    const bundle = await seedLiveBundle(t.db, { questions: mixedRows('answered') });
    const waiting = request(t.baseUrl).get(`/api/v1/clarification/${bundle.pendingId}/wait`).then((res) => res);
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);

    const submitted = answersFrom('while waiting');
    const winner = resolved(await submit('rest', client(), bundle.pendingId, { kind: 'answer', answers: submitted }));
    expect(winner.claimed).toBe(true);
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.body.answers).toEqual(submitted.slice(1));
    expect(waited.body.rejected).toBe(false);
  });

  it('concurrent answers from every surface: exactly one winner, every loser told its outcome', async () => {
    const surfaces: Surface[] = ['rest', 'graphql', 'mcp'];
    for (let round = 0; round < 5; round += 1) {
      const bundle = await seedLiveBundle(t.db, { questions: mixedRows(round % 2 === 0 ? 'answered' : 'rejected') });
      const submissions = surfaces.flatMap((surface) => [0, 1].map((copy) => ({ surface, answers: answersFrom(`${surface}-${copy}`) })));
      const outcomes = await Promise.all(
        submissions.map(({ surface, answers }) => submit(surface, client(), bundle.pendingId, { kind: 'answer', answers })),
      );
      const envelopes = outcomes.map(resolved);
      const winners = envelopes.flatMap((envelope, index) => (envelope.claimed ? [index] : []));
      expect(winners).toHaveLength(1);
      const winnerIndex = winners[0];
      const recorded = submissions[winnerIndex].answers.slice(1);
      for (const envelope of envelopes) {
        expect(envelope).toEqual({ claimed: envelope.claimed, status: 'answered', receipt: expect.any(String), response: { answers: recorded, rejected: false, reject_reason: '' } });
      }
      const rows = await rowsOfPendingId(t.db, bundle.pendingId);
      expect(rows.slice(1).map((row) => row.metadata.response)).toEqual(recorded);
      expect(rows[0]?.metadata.status).toBe(round % 2 === 0 ? 'answered' : 'rejected');
    }
  });
});
