/**
 * Quorum under real parallel connections (rules Q2, Q3, P1): four eligible people vote at once on a
 * bundle that needs all four — one on REST, one on GraphQL, one on MCP, one through the command API —
 * round after round against one server and PostgreSQL. Every round resolves exactly once (one caller
 * is told claimed: true, or the command `accepted` with `submitted`), the agent is resumed once (one
 * queued resume prompt, one ANSWERED or REJECTED event), no vote is lost or counted twice, and every
 * voter, sending their vote again, is told the final resolution. Every other round one voter
 * disagrees: the bundle is then rejected with "answerers disagreed", still exactly once.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../support/app.js';
import { answerRequest, command, decisionRefOf } from '../support/decisions.js';
import { gql } from '../support/graphql.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { askRouted, ONE_QUESTION, PICK, respondAs, team, type Team } from '../support/routing.js';

const ROUNDS = 100;
type Surface = 'rest' | 'graphql' | 'mcp' | 'command';
const SURFACES: Surface[] = ['rest', 'graphql', 'mcp', 'command'];

/** What one voter was told: resolved it (won), a vote recorded, or the final resolution (lost). */
type Told = { kind: 'won' | 'voted' | 'lost'; status: string; rejectReason?: string };

describe('races: four voters on four surfaces at once', () => {
  let t: TestApp;
  let crew: Team;
  let mcp: McpConnection;
  const voter = (surface: Surface) => crew.members[SURFACES.indexOf(surface)];

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    crew = await team(t, 4, 'race');
    mcp = await connectMcp(t.baseUrl, { bearer: voter('mcp').token });
  });

  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  async function roundBundle(round: number): Promise<{ sessionId: string; pendingId: string }> {
    const auth = `Bearer ${crew.owner.token}`;
    const session = await request(t.baseUrl).post(`/api/v1/tasks/${crew.fixture.taskId}/sessions`).set('authorization', auth).send({}).expect(201);
    const sessionId = session.body.id as string;
    await request(t.baseUrl).patch(`/api/v1/sessions/${sessionId}`).set('authorization', auth).send({ state: 'RUNNING' }).expect(200);
    const routing = { answerers: { user_ids: crew.members.map((member) => member.id) }, required_answers: 4 };
    const asked = await askRouted(t, { ...crew, fixture: { ...crew.fixture, sessionId } }, [{ ...ONE_QUESTION[0], prompt: `round ${round}` }], routing).expect(200);
    return { sessionId, pendingId: asked.body.pending_id as string };
  }

  async function vote(surface: Surface, pendingId: string, sessionId: string, option: string, decisionRef: string, round: number): Promise<Told> {
    const { token } = voter(surface);
    switch (surface) {
      case 'rest': {
        const res = await respondAs(t, token, pendingId, { answers: PICK(option) }).expect(200);
        return told(res.body as Envelope);
      }
      case 'graphql': {
        const res = await gql<{ answerQuestion: { claimed: boolean; status: string; response: { rejectReason: string } } }>(
          t,
          `mutation($p: String!, $o: String!) { answerQuestion(pendingId: $p, answers: [{questionId: "db", selectedOptions: [$o]}]) { claimed status response { rejectReason } } }`,
          { p: pendingId, o: option },
          token,
        );
        const resolution = res.body.data?.answerQuestion;
        if (!resolution) throw new Error(JSON.stringify(res.body.errors));
        return told({ claimed: resolution.claimed, status: resolution.status, response: { reject_reason: resolution.response.rejectReason } });
      }
      case 'mcp': {
        const outcome = await mcp.call('answer_question_kandev', { pending_id: pendingId, answers: PICK(option) });
        if (outcome.isError) throw new Error(outcome.text);
        return told(JSON.parse(outcome.text) as Envelope);
      }
      case 'command': {
        const ref = { postgres: '1', sqlite: '2' }[option] ?? '1';
        const result = await command(t, answerRequest(sessionId, decisionRef, { requestId: `race-${round}`, selection: { option_refs: [ref] } }), token);
        if (result.body.status === 'accepted') {
          return result.body.result?.delivery_state === 'vote_recorded' ? { kind: 'voted', status: 'pending' } : { kind: 'won', status: 'resolved' };
        }
        // The bundle was resolved before this command's checks ran: not pending any more.
        expect(result.body.status).toBe('decision_not_pending');
        return { kind: 'lost', status: 'resolved' };
      }
    }
  }

  it(`resolves every one of ${ROUNDS} rounds exactly once and tells every voter the final resolution`, async () => {
    let disagreed = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const { sessionId, pendingId } = await roundBundle(round);
      const decisionRef = await decisionRefOf(t, sessionId, voter('command').token);
      const dissent = round % 2 === 1;
      const options: Record<Surface, string> = { rest: 'postgres', graphql: 'postgres', mcp: dissent ? 'sqlite' : 'postgres', command: 'postgres' };
      const outcomes = await Promise.all(SURFACES.map((surface) => vote(surface, pendingId, sessionId, options[surface], decisionRef, round)));

      const winners = outcomes.filter((outcome) => outcome.kind === 'won');
      expect({ round, winners: winners.length }).toEqual({ round, winners: 1 });
      const rows = await t.db.query<{ status: string }>(`SELECT metadata->>'status' AS status FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`, [pendingId]);
      const final = rows.rows[0]?.status;
      expect(final === 'answered' || final === 'rejected').toBe(true);
      if (!dissent) expect({ round, final }).toEqual({ round, final: 'answered' });
      if (final === 'rejected') disagreed += 1;
      const reason = winners[0]?.rejectReason;
      if (final === 'rejected' && reason !== undefined) expect({ round, reason }).toEqual({ round, reason: 'answerers disagreed' });
      const prompts = await t.db.query(`SELECT 1 FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`, [pendingId]);
      expect({ round, prompts: prompts.rows.length }).toEqual({ round, prompts: final === 'answered' ? 1 : 0 });
      const events = await t.db.query(`SELECT 1 FROM question_events WHERE pending_id = $1 AND type IN ('ANSWERED', 'REJECTED')`, [pendingId]);
      expect({ round, events: events.rows.length }).toEqual({ round, events: 1 });
      const votes = await t.db.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM clarification_votes WHERE pending_id = $1`, [pendingId]);
      if (!dissent) expect({ round, votes: votes.rows[0]?.n }).toEqual({ round, votes: '4' });
      // Each voter, sending their vote again (REST, as the same person), is told the final resolution.
      for (const surface of SURFACES) {
        const again = await respondAs(t, voter(surface).token, pendingId, { answers: PICK(options[surface]) }).expect(200);
        expect({ round, surface, claimed: again.body.claimed, status: again.body.status }).toEqual({ round, surface, claimed: false, status: final });
      }
    }
    expect(disagreed).toBe(ROUNDS / 2);
  });
});

interface Envelope {
  claimed: boolean;
  status: string;
  response: { reject_reason: string };
}

function told(envelope: Envelope): Told {
  if (envelope.claimed) return { kind: 'won', status: envelope.status, rejectReason: envelope.response.reject_reason };
  return envelope.status === 'pending' ? { kind: 'voted', status: 'pending' } : { kind: 'lost', status: envelope.status };
}
