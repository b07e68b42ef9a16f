/**
 * R3: a connector command (POST /api/v1/commands, answer_decision), a REST
 * respond and an MCP answer_question_kandev fired concurrently at the same fresh bundle, round after
 * round, through one real server and PostgreSQL — staggered (each surface leading in turn), or gated:
 * REST and MCP released the moment the command's send starts, so all three reach ResolveBundle's
 * claim together. Exactly one of the three wins every round; the
 * command reports `accepted` only for a bundle it claimed itself (its answer is then the one
 * stored), and otherwise decision_not_pending — never accepted, never a second claim.
 */
import request from 'supertest';
import { QuestionEventService } from '#clarification';
import { CommandReceiptRepository } from '#decisions';
import { startApp, type TestApp } from '../support/app.js';
import { answerRequest, ask, command, type CommandResult, databaseQuestion, decisionRefOf } from '../support/decisions.js';
import { createRunningSession, createUser } from '../support/fixtures.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';

type Surface = 'command' | 'rest' | 'mcp';
const SURFACES: Surface[] = ['command', 'rest', 'mcp'];
const ROUNDS = 24;

interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

/** What each surface submits: the command picks ref "2" (sqlite). */
const ANSWERS: Record<Surface, Answer> = {
  command: { question_id: 'db', selected_options: ['sqlite'], custom_text: '' },
  rest: { question_id: 'db', selected_options: ['postgres'], custom_text: 'from the browser' },
  mcp: { question_id: 'db', selected_options: ['duckdb'], custom_text: 'from an agent' },
};

interface Resolution {
  claimed: boolean;
  status: string;
  response: { answers: Answer[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a command racing a REST answer and an MCP answer: one winner across all three', () => {
  let t: TestApp;
  let token: string;
  let mcp: McpConnection;
  const wins: Record<Surface, number> = { command: 0, rest: 0, mcp: 0 };

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    token = (await createUser(t, 'racer')).token;
    mcp = await connectMcp(t.baseUrl, { bearer: token });
  });
  afterAll(async () => {
    // Information only: which surface won is timing, not a rule (one winner is).
    process.stdout.write(`command vs REST vs MCP winners (information only): ${JSON.stringify(wins)}\n`);
    await mcp.close();
    await t.close();
  });

  async function storedAnswers(pendingId: string): Promise<unknown[]> {
    const { rows } = await t.db.query<{ status: string; response: unknown }>(
      `SELECT metadata->>'status' AS status, metadata->'response' AS response FROM task_session_messages
        WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'`,
      [pendingId],
    );
    return rows;
  }

  async function winnerEvents(pendingId: string): Promise<string[]> {
    await t.app.get(QuestionEventService).flushed();
    const { rows } = await t.db.query<{ type: string }>(
      `SELECT type FROM question_events WHERE pending_id = $1 AND type IN ('ANSWERED', 'REJECTED') ORDER BY id`,
      [pendingId],
    );
    return rows.map((row) => row.type);
  }

  async function resumes(pendingId: string): Promise<number> {
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`,
      [pendingId],
    );
    return rows[0]?.n ?? -1;
  }

  type Start = { kind: 'staggered'; lead: Surface; headStartMs: number } | { kind: 'gated' };

  /** Resolves when the command's send has started (its receipt and claim are send_started). */
  function sendStarted(): { opened: Promise<void>; restore: () => void } {
    const receipts = t.app.get(CommandReceiptRepository);
    const original = receipts.markSendStarted.bind(receipts);
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    receipts.markSendStarted = async (...args) => {
      const started = await original(...args);
      open();
      return started;
    };
    return { opened, restore: () => (receipts.markSendStarted = original) };
  }

  async function round(index: number, start: Start): Promise<void> {
    const fixture = await createRunningSession(t, { bearer: token });
    const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()], token);
    const decisionRef = await decisionRefOf(t, fixture.sessionId, token);
    const requestId = `race-${index}`;
    const gate = start.kind === 'gated' ? sendStarted() : undefined;

    const ready = async (surface: Surface): Promise<void> => {
      if (gate && surface !== 'command') await gate.opened;
      if (start.kind === 'staggered' && surface !== start.lead) await sleep(start.headStartMs);
    };
    const viaCommand = async (): Promise<CommandResult> => {
      await ready('command');
      return command(t, answerRequest(fixture.sessionId, decisionRef, { requestId }), token);
    };
    const viaRest = async (): Promise<Resolution> => {
      await ready('rest');
      const res = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).set('authorization', `Bearer ${token}`).send({ answers: [ANSWERS.rest] });
      if (res.status !== 200) throw new Error(`rest failed: ${res.status} ${res.text}`);
      return res.body as Resolution;
    };
    const viaMcp = async (): Promise<Resolution> => {
      await ready('mcp');
      const outcome = await mcp.call('answer_question_kandev', { pending_id: pendingId, answers: [ANSWERS.mcp] });
      if (outcome.isError) throw new Error(`mcp failed: ${outcome.text}`);
      return JSON.parse(outcome.text) as Resolution;
    };
    const [commandResult, rest, mcpResult] = await Promise.all([viaCommand(), viaRest(), viaMcp()]).finally(() => gate?.restore());
    const results = { command: commandResult, rest, mcp: mcpResult };

    const commandWon = results.command.body.status === 'accepted';
    const winners = SURFACES.filter((surface) => (surface === 'command' ? commandWon : results[surface].claimed));
    expect(winners).toHaveLength(1);
    const winner = winners[0];
    wins[winner] += 1;

    // What is stored is the winner's answer — for the command, the one it sent.
    expect(await storedAnswers(pendingId)).toEqual([{ status: 'answered', response: ANSWERS[winner] }]);
    if (commandWon) {
      expect(results.command.body).toMatchObject({ ok: true, disposition: 'terminal_accepted', result: { pending_id: pendingId } });
    } else {
      expect(results.command.body).toMatchObject({ ok: false, status: 'decision_not_pending' });
      expect(['terminal_rejected', 'no_receipt']).toContain(results.command.body.disposition);
    }
    for (const surface of ['rest', 'mcp'] as const) {
      if (surface !== winner) expect(results[surface]).toMatchObject({ claimed: false, response: { answers: [ANSWERS[winner]] } });
    }
    expect(await winnerEvents(pendingId)).toEqual(['ANSWERED']);
    expect(await resumes(pendingId)).toBe(1);
    // A replay of the command says the same thing again and never claims.
    const replay = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId }), token);
    if (results.command.body.disposition === 'no_receipt') expect(replay.body.status).toBe('decision_not_pending');
    else expect(replay.text).toBe(results.command.text);
    expect(await storedAnswers(pendingId)).toEqual([{ status: 'answered', response: ANSWERS[winner] }]);
  }

  it(`${ROUNDS} rounds, staggered and gated: exactly one winner, and the command is accepted only when its claim won`, async () => {
    for (let index = 0; index < ROUNDS; index += 1) {
      const lead = SURFACES[index % 3];
      // Every other round is gated; the others stagger, the lead a little early (or in a dead heat).
      const start: Start = index % 2 === 1 ? { kind: 'gated' } : { kind: 'staggered', lead, headStartMs: [15, 5, 0][Math.floor(index / 6) % 3] };
      await round(index, start);
    }
  });
});
