import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { gql } from '../../support/graphql.js';
import { connectMcp, type McpConnection } from '../../support/mcp.js';
import { captureStatements } from '../../support/statements.js';

/**
 * Counted on the pool (not benchmarked): a winning answer costs at most
 * 2 commits and 8 statements on every surface and for every way it is delivered; a loser that
 * arrives after the winner's answer is final takes no lock and no commit, in at most 2 statements.
 * The caller's token lookup counts as a statement; its `last_used_at` write happens at most once a
 * minute (the token was used moments before), so it is no commit here.
 */

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];
const TOKEN_LOOKUP = /^\s*WITH token AS \(/;

interface Cost {
  statements: number;
  commits: number;
  locks: number;
}

/** Statements, commits (COMMITs + autocommit writes) and session locks of a captured statement list. */
function costOf(statements: string[]): Cost {
  let inTransaction = false;
  let commits = 0;
  for (const statement of statements) {
    if (/^\s*(START TRANSACTION|BEGIN)\b/i.test(statement)) inTransaction = true;
    else if (/^\s*COMMIT\b/i.test(statement)) {
      inTransaction = false;
      commits += 1;
    } else if (!inTransaction && !TOKEN_LOOKUP.test(statement) && /\b(INSERT|UPDATE|DELETE)\b|pg_notify/i.test(statement)) commits += 1;
  }
  return { statements: statements.length, commits, locks: statements.filter((statement) => /pg_advisory|FOR UPDATE/i.test(statement)).length };
}

describe('what one answer costs in statements and commits', () => {
  let t: TestApp;
  let token: string;
  let mcp: McpConnection;
  let capture: ReturnType<typeof captureStatements>;
  let accepting: http.Server;
  let hookUrl: string;

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE } });
    token = (await createUser(t, 'answerer')).token;
    mcp = await connectMcp(t.baseUrl, { bearer: token });
    accepting = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(202).end());
    });
    await new Promise<void>((resolve) => accepting.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(accepting.address() as AddressInfo).port}/resume`;
    capture = captureStatements(t);
  });
  afterAll(async () => {
    capture.restore();
    await mcp.close();
    await new Promise((resolve) => accepting.close(resolve));
    await t.close();
  });

  async function bundle(options: { resumeUrl?: string } = {}): Promise<{ fixture: SessionFixture; pendingId: string }> {
    const fixture = await createRunningSession(t, { bearer: token, ...options });
    const asked = await request(t.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${token}`)
      .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
      .expect(200);
    return { fixture, pendingId: asked.body.pending_id as string };
  }

  const surfaces: Record<string, (pendingId: string) => Promise<{ claimed: boolean }>> = {
    rest: async (pendingId) =>
      (await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${token}`).send({ answers: ANSWERS }).expect(200))
        .body as { claimed: boolean },
    graphql: async (pendingId) => {
      const result = await gql<{ answerQuestion: { claimed: boolean } }>(
        t,
        `mutation ($id: String!, $answers: [AnswerInput!]!) { answerQuestion(pendingId: $id, answers: $answers) { claimed } }`,
        { id: pendingId, answers: ANSWERS.map((answer) => ({ questionId: answer.question_id, selectedOptions: answer.selected_options, customText: '' })) },
        token,
      );
      return result.body.data?.answerQuestion as { claimed: boolean };
    },
    mcp: async (pendingId) => JSON.parse((await mcp.call('answer_question_kandev', { pending_id: pendingId, answers: ANSWERS })).text) as { claimed: boolean },
  };

  describe.each(Object.keys(surfaces))('over %s', (surface) => {
    const answer = (pendingId: string) => (surfaces[surface])(pendingId);

    it('a winner resumed through a queued prompt: ≤ 2 commits, ≤ 8 statements; a late loser: no lock, no commit, ≤ 2 statements', async () => {
      const { pendingId } = await bundle();
      const won = await capture.during(() => answer(pendingId));
      expect(won.result.claimed).toBe(true);
      const cost = costOf(won.pool);
      expect(cost.commits).toBeLessThanOrEqual(2);
      expect(cost.statements).toBeLessThanOrEqual(8);

      const lost = await capture.during(() => answer(pendingId));
      expect(lost.result.claimed).toBe(false);
      expect(costOf(lost.pool)).toEqual({ statements: lost.pool.length, commits: 0, locks: 0 });
      expect(lost.pool.length).toBeLessThanOrEqual(2);
    });

    it('target 5: the token lookup, the bundle read and the claim transaction are named prepared statements (planned once per connection)', async () => {
      const { pendingId } = await bundle();
      const won = await capture.during(() => answer(pendingId));
      expect(won.result.claimed).toBe(true);
      const labels = won.named.map((name) => name.replace(/_[0-9a-f]{16}$/, ''));
      expect(labels).toEqual(expect.arrayContaining(['active_token', 'authorized_bundle', 'claim_lock', 'claim']));
    });

    it('a winner resumed through the webhook (claim, hand-off, finalize): ≤ 2 commits, ≤ 8 statements', async () => {
      const { pendingId } = await bundle({ resumeUrl: hookUrl });
      const won = await capture.during(() => answer(pendingId));
      expect(won.result.claimed).toBe(true);
      const cost = costOf(won.pool);
      expect(cost.commits).toBeLessThanOrEqual(2);
      expect(cost.statements).toBeLessThanOrEqual(8);
    });

    it('a winner delivered to the agent waiting live (its confirmation included): ≤ 2 commits, ≤ 8 statements', async () => {
      const { fixture, pendingId } = await bundle();
      const waiting = fetch(`${t.baseUrl}/api/v1/clarification/${pendingId}/wait`, { headers: { authorization: `Bearer ${fixture.agentToken}` } });
      // The wait announces its presence after it parks; count the answer only once that row is there.
      const announced = async () =>
        t.app.get(WaiterStore).waiterCount(pendingId) > 0 &&
        (await t.db.query(`SELECT 1 FROM clarification_waiters WHERE pending_id = $1`, [pendingId])).rowCount === 1;
      await eventually(async () => ((await announced()) ? true : undefined), 5_000, 'the agent waiting');
      const won = await capture.during(() => answer(pendingId));
      expect(won.result.claimed).toBe(true);
      expect((await waiting).status).toBe(200);
      const cost = costOf(won.pool);
      expect(cost.commits).toBeLessThanOrEqual(2);
      expect(cost.statements).toBeLessThanOrEqual(8);
    });
  });
});
