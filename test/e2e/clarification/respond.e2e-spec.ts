/**
 * POST /api/v1/clarification/:id/respond against the real application and a real PostgreSQL
 * database: "Resolution semantics" (R1–R12), the N-rules of `answer_question_kandev` that
 * bind every surface (N3a, N6–N8d), and L16. Every state claim is checked against the rows.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { WaiterStore } from '#clarification';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, freshBundle, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { lifecycleCounts, lifecycleMoved, questionEventsOf } from '../../support/lifecycle-events.js';

type Json = Record<string, unknown>;

interface AnswerEntry {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

interface RowSnapshot {
  id: string;
  type: string;
  turn_id: string | null;
  task_id: string;
  metadata: Json;
  updated_at: Date;
}

const NOT_ACTIVE = { error: 'clarification request is no longer active', code: 'CONFLICT' };
const NOT_FOUND = { error: 'clarification request not found', code: 'NOT_FOUND' };

/** The canonical answer to TWO_QUESTIONS (question ids "db" and "q2"), already in N3a form. */
const ANSWERS: AnswerEntry[] = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: [], custom_text: 'tomorrow' },
];
const ONE_QUESTION = [{ id: 'only', prompt: 'Proceed?', options: [{ option_id: 'y', label: 'Yes' }, { option_id: 'n', label: 'No' }] }];

/** 2000 code points = 3000 UTF-16 units = 6000 UTF-8 bytes: a limit counted in anything but runes fails here. */
const RUNES_2000 = '😀\u00e9'.repeat(1000);
const RUNES_2001 = `${RUNES_2000}😀`;

/** The parsed raw body, checked to be JSON. */
function rawJson(res: request.Response): Json {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return JSON.parse(res.text) as Json;
}

/** The exact bytes the server sent for the envelope's `response` value (the last key). */
function rawResponseText(res: request.Response): string {
  const marker = '"response":';
  const start = res.text.indexOf(marker);
  expect(start).toBeGreaterThan(0);
  expect(res.text.endsWith('}')).toBe(true);
  const text = res.text.slice(start + marker.length, -1);
  expect(JSON.parse(text)).toEqual(rawJson(res).response);
  return text;
}

describe('POST /api/v1/clarification/:id/respond (spec R1–R12, N3a–N8d, L16)', () => {
  let t: TestApp;
  const api = () => request(t.baseUrl);
  const respond = (pendingId: string, body: unknown) =>
    api().post(`/api/v1/clarification/${pendingId}/respond`).send(body as object);

  async function ask(sessionId: string, questions: unknown = TWO_QUESTIONS): Promise<string> {
    const res = await api().post('/api/v1/clarification/request').send({ session_id: sessionId, questions });
    expect(res.status).toBe(200);
    return (res.body as { pending_id: string }).pending_id;
  }

  /** The bundle's rows in D2 order (question_index, created_at, id). */
  async function bundleRows(pendingId: string, db = t.db): Promise<RowSnapshot[]> {
    const { rows } = await db.query<RowSnapshot>(
      `SELECT id, type, turn_id, task_id, metadata, updated_at FROM task_session_messages
        WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
        ORDER BY COALESCE((metadata->>'question_index')::int, 0), created_at, id`,
      [pendingId],
    );
    return rows;
  }

  /** Everything a resolution could touch in a session: messages, turns, the session row. */
  async function sessionSnapshot(sessionId: string) {
    const messages = await t.db.query(
      `SELECT id, type, turn_id, task_id, metadata, updated_at FROM task_session_messages WHERE task_session_id = $1 ORDER BY id`,
      [sessionId],
    );
    const turns = await t.db.query(
      `SELECT id, started_at, completed_at, metadata FROM task_session_turns WHERE task_session_id = $1 ORDER BY id`,
      [sessionId],
    );
    const session = await t.db.query(`SELECT state, updated_at FROM task_sessions WHERE id = $1`, [sessionId]);
    return { messages: messages.rows, turns: turns.rows, session: session.rows };
  }

  async function resumePromptCount(pendingId: string, db = t.db): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`,
      [pendingId],
    );
    return rows[0]?.n ?? -1;
  }

  async function successorTurnCount(pendingId: string, db = t.db): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM task_session_turns WHERE metadata->>'resume_of' = $1`,
      [pendingId],
    );
    return rows[0]?.n ?? -1;
  }

  /** From now on: the lifecycle events the app counts (every name) and the question events written for the bundle. */
  async function recordEvents(pendingId: string): Promise<() => Promise<{ counted: Record<string, number>; written: unknown[] }>> {
    const counts = await lifecycleCounts(t);
    const written = (await questionEventsOf(t.db, pendingId)).length;
    return async () => ({ counted: await lifecycleMoved(t, counts), written: (await questionEventsOf(t.db, pendingId)).slice(written) });
  }

  function expect400Naming(res: request.Response, field: RegExp): void {
    expect(res.status).toBe(400);
    const body = rawJson(res);
    expect(Object.keys(body)).toEqual(['error', 'code']);
    expect(body.error).toEqual(expect.any(String));
    expect(body.error).toMatch(field);
  }

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('fixture sanity: TWO_QUESTIONS has question ids db, q2 and option ids pg, sqlite / q2_opt1, q2_opt2', async () => {
    const { pendingId } = await freshBundle(t);
    const res = await api().get(`/api/v1/clarification/${pendingId}`).expect(200);
    const questions = (res.body as { questions: { id: string; options: { option_id: string }[] }[] }).questions;
    expect(questions.map((q) => [q.id, q.options.map((o) => o.option_id)])).toEqual([
      ['db', ['pg', 'sqlite']],
      ['q2', ['q2_opt1', 'q2_opt2']],
    ]);
  });

  describe('R1/R2/R2b/R2c: winner and losers', () => {
    it('R1: the first answer to an active bundle wins: 200 claimed:true, rows answered, exactly one resume', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      const res = await respond(pendingId, { answers: ANSWERS, rejected: false });
      expect(res.status).toBe(200);
      expect(rawJson(res)).toEqual({
        success: true,
        claimed: true,
        status: 'answered',
        receipt: expect.any(String),
        response: { answers: ANSWERS, rejected: false, reject_reason: '' },
      });
      const rows = await bundleRows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      expect(rows.map((row) => row.metadata.response)).toEqual(ANSWERS);
      // No live waiter and no webhook: the winner resumes the agent by queuing one resume_prompt.
      expect(await resumePromptCount(pendingId)).toBe(1);
      expect(await successorTurnCount(pendingId)).toBe(1);
      expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
      const session = await api().get(`/api/v1/sessions/${fixture.sessionId}`).expect(200);
      expect(session.body.state).toBe('RUNNING');
    });

    it('R2 (winner branch): a duplicate after a winner ⇒ 200 claimed:false + winner payload, and NOTHING is modified or published', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      const winner = await respond(pendingId, { answers: ANSWERS });
      expect(winner.status).toBe(200);
      expect(winner.body.claimed).toBe(true);

      const before = await sessionSnapshot(fixture.sessionId);
      const published = await recordEvents(pendingId);
      const loserAnswers = [
        { question_id: 'db', selected_options: ['sqlite'], custom_text: 'loser' },
        { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'never' },
      ];
      const duplicate = await respond(pendingId, { answers: loserAnswers });
      const rejection = await respond(pendingId, { rejected: true, reject_reason: 'too late' });

      for (const res of [duplicate, rejection]) {
        expect(res.status).toBe(200);
        expect(rawJson(res)).toEqual({
          success: true,
          claimed: false,
          status: 'answered',
          receipt: expect.any(String),
          response: { answers: ANSWERS, rejected: false, reject_reason: '' },
        });
        expect(rawResponseText(res)).toBe(rawResponseText(winner));
      }
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
      expect(await published()).toEqual({ counted: {}, written: [] });
      expect(await resumePromptCount(pendingId)).toBe(1);
    });

    it('R2 (no-winner branch): a superseded bundle (a newer turn started) ⇒ 409 and the rows stay untouched', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      await api().post(`/api/v1/sessions/${fixture.sessionId}/turns`).expect(201);
      const before = await bundleRows(pendingId);
      expect(before.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
      for (const body of [{ answers: ANSWERS }, { rejected: true, reject_reason: 'no' }]) {
        const res = await respond(pendingId, body);
        expect(res.status).toBe(409);
        expect(rawJson(res)).toEqual(NOT_ACTIVE);
      }
      expect(await bundleRows(pendingId)).toEqual(before);
      expect(await resumePromptCount(pendingId)).toBe(0);
    });

    it('R2 (no-winner branch): a terminal session (PATCH COMPLETED expires the bundle) ⇒ 409', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      await api().patch(`/api/v1/sessions/${fixture.sessionId}`).send({ state: 'COMPLETED' }).expect(200);
      const before = await bundleRows(pendingId);
      expect(before.map((row) => row.metadata.status)).toEqual(['expired', 'expired']);
      const res = await respond(pendingId, { answers: ANSWERS });
      expect(res.status).toBe(409);
      expect(rawJson(res)).toEqual(NOT_ACTIVE);
      expect(await bundleRows(pendingId)).toEqual(before);
    });

    it('R2 (no-winner branch): a terminal session whose rows are still pending ⇒ 409 (the session predicate alone decides)', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      await t.db.query(`UPDATE task_sessions SET state = 'FAILED' WHERE id = $1`, [fixture.sessionId]);
      const before = await bundleRows(pendingId);
      expect(before.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
      const res = await respond(pendingId, { rejected: true });
      expect(res.status).toBe(409);
      expect(rawJson(res)).toEqual(NOT_ACTIVE);
      expect(await bundleRows(pendingId)).toEqual(before);
    });

    it('R2 (no-winner branch): an expired bundle on a live session ⇒ 409', async () => {
      const { pendingId } = await freshBundle(t);
      await t.db.query(
        `UPDATE task_session_messages SET metadata = metadata || '{"status": "expired"}'::jsonb WHERE metadata->>'pending_id' = $1`,
        [pendingId],
      );
      const before = await bundleRows(pendingId);
      const res = await respond(pendingId, { answers: ANSWERS });
      expect(res.status).toBe(409);
      expect(rawJson(res)).toEqual(NOT_ACTIVE);
      expect(await bundleRows(pendingId)).toEqual(before);
    });

    it('R2 (no-winner branch): a cancelled bundle ⇒ 409, not a winner', async () => {
      const { pendingId } = await freshBundle(t);
      await api().post(`/api/v1/clarification/${pendingId}/cancel`).expect(200, { success: true });
      const res = await respond(pendingId, { answers: ANSWERS });
      expect(res.status).toBe(409);
      expect(rawJson(res)).toEqual(NOT_ACTIVE);
      expect((await bundleRows(pendingId)).map((row) => row.metadata.status)).toEqual(['cancelled', 'cancelled']);
    });

    it('R2b: a replayed rejection carries answers [] and reject_reason "" even though the winner gave a reason', async () => {
      const { pendingId } = await freshBundle(t);
      const winner = await respond(pendingId, { rejected: true, reject_reason: 'not now, sorry' });
      expect(winner.status).toBe(200);
      expect(rawJson(winner)).toEqual({
        success: true,
        claimed: true,
        status: 'rejected',
        receipt: expect.any(String),
        response: { answers: [], rejected: true, reject_reason: 'not now, sorry' },
      });
      for (const body of [{ answers: ANSWERS }, { rejected: true, reject_reason: 'me too' }]) {
        const loser = await respond(pendingId, body);
        expect(loser.status).toBe(200);
        expect(rawJson(loser)).toEqual({
          success: true,
          claimed: false,
          status: 'rejected',
          receipt: expect.any(String),
          response: { answers: [], rejected: true, reject_reason: '' },
        });
      }
      const rows = await bundleRows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
      expect(rows.some((row) => 'response' in row.metadata)).toBe(false);
    });

    it("R2b: a replayed answer is the winner's (not the loser's), in D2 order although the winner sent it reversed", async () => {
      const { pendingId } = await freshBundle(t);
      const winnerAnswers = [
        { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'winner two' },
        { question_id: 'db', selected_options: ['sqlite'], custom_text: 'winner one' },
      ];
      const winner = await respond(pendingId, { answers: winnerAnswers });
      expect(winner.status).toBe(200);
      expect(winner.body.claimed).toBe(true);
      const inD2Order = [winnerAnswers[1], winnerAnswers[0]];
      expect(rawJson(winner).response).toEqual({ answers: inD2Order, rejected: false, reject_reason: '' });

      const loser = await respond(pendingId, { answers: ANSWERS });
      expect(loser.status).toBe(200);
      expect(rawJson(loser)).toEqual({
        success: true,
        claimed: false,
        status: 'answered',
        receipt: expect.any(String),
        response: { answers: inD2Order, rejected: false, reject_reason: '' },
      });
    });

    it('R2b/D2: question order is question_index, not creation order — for the winner and for the replay', async () => {
      const { pendingId } = await freshBundle(t);
      // Swap the stored indexes: D2 order becomes q2, db although db was written first.
      await t.db.query(
        `UPDATE task_session_messages
            SET metadata = jsonb_set(metadata, '{question_index}', to_jsonb(1 - (metadata->>'question_index')::int))
          WHERE metadata->>'pending_id' = $1`,
        [pendingId],
      );
      const winner = await respond(pendingId, { answers: ANSWERS });
      expect(winner.status).toBe(200);
      expect(winner.body.claimed).toBe(true);
      const expected = [ANSWERS[1], ANSWERS[0]];
      expect(rawJson(winner).response).toEqual({ answers: expected, rejected: false, reject_reason: '' });
      const loser = await respond(pendingId, { answers: ANSWERS });
      expect(rawJson(loser)).toMatchObject({ claimed: false, response: { answers: expected } });
    });

    it.each([
      ['an unknown option id (N8)', { answers: [{ question_id: 'db', selected_options: ['mysql'] }, { question_id: 'q2' }] }, /selected_options/],
      ['rejected:true with answers (N8a)', { rejected: true, answers: ANSWERS }, /answers|rejected/],
      ['rejected:false with no answers (N8a/N6.1)', { rejected: false, answers: [] }, /answers/],
      ['a missing entry (N6.1)', { answers: [ANSWERS[0]] }, /answers/],
      ['an over-long reject_reason (N8b)', { rejected: true, reject_reason: RUNES_2001 }, /reject_reason/],
    ])('R2c: %s against an already-resolved bundle ⇒ 400, not the winner payload', async (_name, body, field) => {
      const { fixture, pendingId } = await freshBundle(t);
      expect((await respond(pendingId, { answers: ANSWERS })).body.claimed).toBe(true);
      const before = await sessionSnapshot(fixture.sessionId);
      const res = await respond(pendingId, body);
      expect400Naming(res, field);
      expect(res.text).not.toContain('claimed');
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
    });

    it('R10/A5: an unknown pending_id ⇒ 404 "clarification request not found" for an answer and for a rejection', async () => {
      for (const body of [{ answers: ANSWERS }, { rejected: true }]) {
        const res = await respond('00000000-0000-4000-8000-000000000000', body);
        expect(res.status).toBe(404);
        expect(rawJson(res)).toEqual(NOT_FOUND);
      }
    });
  });

  describe('R3: concurrency', () => {
    it('16 parallel responds with different answers, 5 rounds ⇒ exactly one claimed:true, the rest the identical winner payload, one resume', async () => {
      const fixture = await createRunningSession(t);
      for (let round = 0; round < 5; round++) {
        const pendingId = await ask(fixture.sessionId);
        const submissions = Array.from({ length: 16 }, (_, caller) => [
          { question_id: 'db', selected_options: [caller % 2 === 0 ? 'pg' : 'sqlite'], custom_text: `round ${round} caller ${caller}` },
          { question_id: 'q2', selected_options: caller % 3 === 0 ? [] : ['q2_opt1'], custom_text: '' },
        ]);
        const results = await Promise.all(submissions.map((answers) => respond(pendingId, { answers })));
        expect(results.map((res) => res.status)).toEqual(Array(16).fill(200));
        const winners = results.filter((res) => res.body.claimed === true);
        expect(winners).toHaveLength(1);
        const winner = winners[0];
        const winnerIndex = results.indexOf(winner);
        expect(rawJson(winner).response).toEqual({ answers: submissions[winnerIndex], rejected: false, reject_reason: '' });
        const winnerText = rawResponseText(winner);
        for (const loser of results.filter((res) => res !== winner)) {
          expect(rawJson(loser)).toMatchObject({ success: true, claimed: false, status: 'answered' });
          expect(rawResponseText(loser)).toBe(winnerText);
        }
        const rows = await bundleRows(pendingId);
        expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
        expect(rows.map((row) => row.metadata.response)).toEqual(submissions[winnerIndex]);
        expect(await resumePromptCount(pendingId)).toBe(1);
        expect(await successorTurnCount(pendingId)).toBe(1);
      }
    });
  });

  describe('R12: every key on the raw JSON', () => {
    function expectAllKeys(res: request.Response, claimed: boolean, status: 'answered' | 'rejected', entries: number): Json {
      expect(res.status).toBe(200);
      const body = rawJson(res);
      expect(Object.keys(body).sort()).toEqual(['claimed', 'receipt', 'response', 'status', 'success']);
      expect(body.success).toBe(true);
      expect(body.claimed).toBe(claimed);
      expect(body.status).toBe(status);
      const response = body.response as Json;
      for (const key of ['answers', 'rejected', 'reject_reason']) {
        expect(Object.prototype.hasOwnProperty.call(response, key)).toBe(true);
      }
      expect(Object.keys(response).sort()).toEqual(['answers', 'reject_reason', 'rejected']);
      expect(Array.isArray(response.answers)).toBe(true);
      expect(typeof response.rejected).toBe('boolean');
      expect(typeof response.reject_reason).toBe('string');
      const answers = response.answers as Json[];
      expect(answers).toHaveLength(entries);
      for (const entry of answers) {
        for (const key of ['question_id', 'selected_options', 'custom_text']) {
          expect(Object.prototype.hasOwnProperty.call(entry, key)).toBe(true);
        }
        expect(Object.keys(entry).sort()).toEqual(['custom_text', 'question_id', 'selected_options']);
        expect(Array.isArray(entry.selected_options)).toBe(true);
        expect(typeof entry.custom_text).toBe('string');
      }
      return response;
    }

    it('winner answer and replayed answer: rejected:false, reject_reason "", empty selected_options [] and custom_text "" all present', async () => {
      const { pendingId } = await freshBundle(t);
      // Each entry has one empty field: db no custom_text, q2 no selected_options (both keys omitted on input).
      const body = { answers: [{ question_id: 'db', selected_options: ['pg'] }, { question_id: 'q2', custom_text: 'later' }] };
      const winner = expectAllKeys(await respond(pendingId, body), true, 'answered', 2);
      expect(winner).toEqual({ answers: [ANSWERS[0], { question_id: 'q2', selected_options: [], custom_text: 'later' }], rejected: false, reject_reason: '' });
      const replay = expectAllKeys(await respond(pendingId, body), false, 'answered', 2);
      expect(replay).toEqual(winner);
    });

    it('an entry with neither field (N7) keeps all three keys on the winner and on the replay', async () => {
      const { pendingId } = await freshBundle(t, { questions: ONE_QUESTION });
      const winner = expectAllKeys(await respond(pendingId, { answers: [{ question_id: 'only' }] }), true, 'answered', 1);
      expect(winner.answers).toEqual([{ question_id: 'only', selected_options: [], custom_text: '' }]);
      const replay = expectAllKeys(await respond(pendingId, { answers: [{ question_id: 'only' }] }), false, 'answered', 1);
      expect(replay).toEqual(winner);
    });

    it('winner rejection without a reason and replayed rejection: answers [] and reject_reason "" present', async () => {
      const { pendingId } = await freshBundle(t);
      const winner = expectAllKeys(await respond(pendingId, { rejected: true }), true, 'rejected', 0);
      expect(winner).toEqual({ answers: [], rejected: true, reject_reason: '' });
      const replay = expectAllKeys(await respond(pendingId, { rejected: true, reject_reason: 'x' }), false, 'rejected', 0);
      expect(replay).toEqual({ answers: [], rejected: true, reject_reason: '' });
    });
  });

  describe('N3a: normalization', () => {
    it('differently ordered entries, duplicate selected_options and surrounding whitespace give byte-identical responses (winner and replay), stored normalized (P1b)', async () => {
      const fixture = await createRunningSession(t);
      const messy = {
        answers: [
          { question_id: 'q2', selected_options: ['q2_opt2', 'q2_opt1', 'q2_opt2'], custom_text: '\t  ship it \n' },
          { question_id: 'db', selected_options: ['sqlite', 'pg', 'sqlite', 'pg'], custom_text: '  both  ' },
        ],
      };
      const clean = {
        answers: [
          { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: 'both' },
          { question_id: 'q2', selected_options: ['q2_opt1', 'q2_opt2'], custom_text: 'ship it' },
        ],
      };
      const first = await ask(fixture.sessionId);
      const messyRes = await respond(first, messy);
      expect(messyRes.status).toBe(200);
      expect(messyRes.body.claimed).toBe(true);
      const second = await ask(fixture.sessionId);
      expect(second).not.toBe(first);
      const cleanRes = await respond(second, clean);
      expect(cleanRes.status).toBe(200);
      expect(cleanRes.body.claimed).toBe(true);

      const canonical = rawResponseText(cleanRes);
      expect(rawResponseText(messyRes)).toBe(canonical);
      expect(JSON.parse(canonical)).toEqual({ answers: clean.answers, rejected: false, reject_reason: '' });
      // The replay of either bundle is the same bytes: the claim stored the normalized answers.
      expect(rawResponseText(await respond(first, clean))).toBe(canonical);
      expect(rawResponseText(await respond(second, messy))).toBe(canonical);
      expect((await bundleRows(first)).map((row) => row.metadata.response)).toEqual(clean.answers);
    });

    it('N3a rule 3: custom_text and reject_reason are trimmed; nothing else is transformed', async () => {
      const { pendingId } = await freshBundle(t);
      const res = await respond(pendingId, {
        answers: [
          { question_id: 'db', custom_text: '  Mixed CASE  inner  spaces\u00e9  ' },
          { question_id: 'q2', custom_text: '\n\tline one\nline two\n' },
        ],
      });
      expect(rawJson(res).response).toEqual({
        answers: [
          { question_id: 'db', selected_options: [], custom_text: 'Mixed CASE  inner  spaces\u00e9' },
          { question_id: 'q2', selected_options: [], custom_text: 'line one\nline two' },
        ],
        rejected: false,
        reject_reason: '',
      });
      const other = await freshBundle(t);
      const rejected = await respond(other.pendingId, { rejected: true, reject_reason: '   busy  today ' });
      expect(rawJson(rejected).response).toEqual({ answers: [], rejected: true, reject_reason: 'busy  today' });
    });

    it('N3a rule 3 ordering: a custom_text of 2000 runes plus a trailing space (2001 raw) ⇒ 400, not trimmed and accepted', async () => {
      const { pendingId } = await freshBundle(t);
      const text = `${RUNES_2000} `;
      expect([...text]).toHaveLength(2001);
      const before = await bundleRows(pendingId);
      const res = await respond(pendingId, { answers: [{ question_id: 'db', custom_text: text }, { question_id: 'q2' }] });
      expect400Naming(res, /custom_text/);
      expect(await bundleRows(pendingId)).toEqual(before);
      const reason = await respond(pendingId, { rejected: true, reject_reason: ` ${RUNES_2000}` });
      expect400Naming(reason, /reject_reason/);
      expect(await bundleRows(pendingId)).toEqual(before);
    });
  });

  describe('N8b: 2000 runes counted over code points (multi-byte fixture)', () => {
    it('fixture: 2000 code points but 3000 UTF-16 units and 6000 UTF-8 bytes', () => {
      expect([...RUNES_2000]).toHaveLength(2000);
      expect(RUNES_2000.length).toBe(3000);
      expect(Buffer.byteLength(RUNES_2000, 'utf8')).toBe(6000);
      expect([...RUNES_2001]).toHaveLength(2001);
    });

    it('custom_text: 2000 runes accepted verbatim', async () => {
      const { pendingId } = await freshBundle(t);
      const res = await respond(pendingId, { answers: [{ question_id: 'db', custom_text: RUNES_2000 }, { question_id: 'q2' }] });
      expect(res.status).toBe(200);
      expect(res.body.claimed).toBe(true);
      expect((rawJson(res).response as { answers: AnswerEntry[] }).answers[0]?.custom_text).toBe(RUNES_2000);
      expect((await bundleRows(pendingId))[0]?.metadata.response).toEqual({ question_id: 'db', selected_options: [], custom_text: RUNES_2000 });
    });

    it('custom_text: 2001 runes rejected (on the second entry too — the cap is per entry)', async () => {
      const { pendingId } = await freshBundle(t);
      const before = await bundleRows(pendingId);
      expect400Naming(
        await respond(pendingId, { answers: [{ question_id: 'db', custom_text: RUNES_2001 }, { question_id: 'q2' }] }),
        /custom_text/,
      );
      expect400Naming(
        await respond(pendingId, { answers: [{ question_id: 'db', custom_text: RUNES_2000 }, { question_id: 'q2', custom_text: RUNES_2001 }] }),
        /custom_text/,
      );
      expect(await bundleRows(pendingId)).toEqual(before);
    });

    it('reject_reason: 2000 runes accepted verbatim', async () => {
      const { pendingId } = await freshBundle(t);
      const res = await respond(pendingId, { rejected: true, reject_reason: RUNES_2000 });
      expect(res.status).toBe(200);
      expect(rawJson(res)).toMatchObject({ claimed: true, status: 'rejected', receipt: expect.any(String), response: { reject_reason: RUNES_2000 } });
    });

    it('reject_reason: 2001 runes rejected', async () => {
      const { pendingId } = await freshBundle(t);
      const before = await bundleRows(pendingId);
      expect400Naming(await respond(pendingId, { rejected: true, reject_reason: RUNES_2001 }), /reject_reason/);
      expect(await bundleRows(pendingId)).toEqual(before);
    });
  });

  describe('N6–N8a, N8c/N8d: each rule in isolation ⇒ 400 naming the field, bundle untouched, still answerable', () => {
    let fixture: SessionFixture;
    let pendingId: string;
    let single: string;
    let before: Awaited<ReturnType<typeof sessionSnapshot>>;

    beforeAll(async () => {
      ({ fixture, pendingId } = await freshBundle(t));
      single = await ask(fixture.sessionId, ONE_QUESTION);
      before = await sessionSnapshot(fixture.sessionId);
    });

    const q2 = { question_id: 'q2' };
    it.each([
      ['N6.1 one entry for a two-question bundle', { answers: [ANSWERS[0]] }, /answers/],
      ['N6.1 no answers at all (body {})', {}, /answers/],
      ['N6.2 an entry with an empty question_id', { answers: [{ question_id: '', selected_options: ['pg'] }, q2] }, /question_id/],
      ['N6.3 a question_id not in the bundle', { answers: [{ question_id: 'nope' }, q2] }, /question_id/],
      ['N6.4 a repeated question_id', { answers: [{ question_id: 'db' }, { question_id: 'db' }] }, /question_id/],
      ['N8 an unknown option id', { answers: [{ question_id: 'db', selected_options: ['pg', 'mysql'] }, q2] }, /selected_options/],
      ['N8 an option id of the other question', { answers: [{ question_id: 'db', selected_options: ['q2_opt1'] }, q2] }, /selected_options/],
      ['N8a rejected:true with a non-empty answers array', { rejected: true, answers: ANSWERS }, /answers|rejected/],
      ['N8a rejected:false with an empty answers array', { rejected: false, answers: [] }, /answers/],
      ['N8b custom_text over 2000 runes', { answers: [{ question_id: 'db', custom_text: RUNES_2001 }, q2] }, /custom_text/],
      ['N8b reject_reason over 2000 runes', { rejected: true, reject_reason: RUNES_2001 }, /reject_reason/],
    ])('%s', async (_rule, body, field) => {
      expect400Naming(await respond(pendingId, body), field);
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
    });

    it.each([
      ['N8a rejected:false with [] on a single-question bundle', { rejected: false, answers: [] }, /answers/],
      ['N8a answers omitted, rejected:false, single-question bundle', { rejected: false }, /answers/],
      ['N8a rejected:true with one answer on a single-question bundle', { rejected: true, answers: [{ question_id: 'only' }] }, /answers|rejected/],
    ])('%s', async (_rule, body, field) => {
      expect400Naming(await respond(single, body), field);
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
    });

    it('N8c: after every rejected submission both bundles are still pending and answerable', async () => {
      const rows = await bundleRows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
      expect(rows.some((row) => 'response' in row.metadata)).toBe(false);
      const res = await respond(pendingId, { answers: ANSWERS });
      expect(res.status).toBe(200);
      expect(res.body.claimed).toBe(true);
      // The single-question bundle is on the same (now superseded by the resume) turn: it is no
      // longer active, so check it was untouched by validation rather than answer it.
      expect((await bundleRows(single)).map((row) => row.metadata.status)).toEqual(['pending']);
    });

    it('N8c: a single-question bundle rejected by validation is still answerable afterwards', async () => {
      const other = await freshBundle(t, { questions: ONE_QUESTION });
      expect400Naming(await respond(other.pendingId, { rejected: false, answers: [] }), /answers/);
      const res = await respond(other.pendingId, { answers: [{ question_id: 'only', selected_options: ['y'] }] });
      expect(res.status).toBe(200);
      expect(rawJson(res)).toMatchObject({ claimed: true, status: 'answered' });
    });
  });

  describe('N7/N8: accepted shapes', () => {
    it('N7: an entry with neither selected_options nor custom_text is accepted and resumes as "(no answer)"', async () => {
      const { pendingId } = await freshBundle(t);
      const res = await respond(pendingId, { answers: [{ question_id: 'db' }, { question_id: 'q2', selected_options: [], custom_text: '' }] });
      expect(res.status).toBe(200);
      expect(rawJson(res)).toEqual({
        success: true,
        claimed: true,
        status: 'answered',
        receipt: expect.any(String),
        response: {
          answers: [
            { question_id: 'db', selected_options: [], custom_text: '' },
            { question_id: 'q2', selected_options: [], custom_text: '' },
          ],
          rejected: false,
          reject_reason: '',
        },
      });
      const { rows } = await t.db.query<{ content: string }>(
        `SELECT content FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`,
        [pendingId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.content).toBe(
        'You previously asked the user: "Which database?"\n(no answer)\n\n' +
          'You previously asked the user: "Deploy now?"\n(no answer)\n\nPlease continue with this information.',
      );
    });

    it('N8: several valid option ids on one question are accepted (membership only, no cardinality rule)', async () => {
      const { pendingId } = await freshBundle(t);
      const res = await respond(pendingId, {
        answers: [
          { question_id: 'db', selected_options: ['pg', 'sqlite'] },
          { question_id: 'q2', selected_options: ['q2_opt1', 'q2_opt2'], custom_text: 'and note' },
        ],
      });
      expect(res.status).toBe(200);
      expect(rawJson(res).response).toEqual({
        answers: [
          { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: '' },
          { question_id: 'q2', selected_options: ['q2_opt1', 'q2_opt2'], custom_text: 'and note' },
        ],
        rejected: false,
        reject_reason: '',
      });
    });
  });

  describe('L16: a bundle with a message lacking question_id', () => {
    it.each([
      ['an empty question_id', `jsonb_set(metadata, '{question_id}', '""')`],
      ['an absent question_id', `metadata - 'question_id'`],
    ])('%s ⇒ 400 naming question_id (not 500) for an answer and for a rejection; nothing written', async (_name, patch) => {
      const { fixture, pendingId } = await freshBundle(t);
      await t.db.query(
        `UPDATE task_session_messages SET metadata = ${patch}
          WHERE metadata->>'pending_id' = $1 AND metadata->>'question_id' = 'q2'`,
        [pendingId],
      );
      const before = await sessionSnapshot(fixture.sessionId);
      const published = await recordEvents(pendingId);
      const answers = [
        { question_id: 'db', selected_options: ['pg'] },
        { question_id: 'q2', selected_options: ['q2_opt1'] },
      ];
      for (const body of [{ answers }, { answers: [{ question_id: 'db' }] }, { rejected: true }, { rejected: true, reject_reason: 'skip' }]) {
        expect400Naming(await respond(pendingId, body), /question_id/);
      }
      expect(await published()).toEqual({ counted: {}, written: [] });
      expect(await sessionSnapshot(fixture.sessionId)).toEqual(before);
      expect(await resumePromptCount(pendingId)).toBe(0);
    });
  });

  describe('R4a: the claim itself fails', () => {
    it('a database failure inside the claim ⇒ 500, attempted once (no retry), rolled back, answerable afterwards', async () => {
      const { pendingId } = await freshBundle(t);
      // A real PostgreSQL failure of the claim's terminal write for this one bundle. The sequence is
      // non-transactional, so it counts claim attempts even though each one rolls back.
      await t.db.query(`CREATE SEQUENCE r4a_attempts`);
      await t.db.query(`
        CREATE FUNCTION r4a_fail() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.metadata->>'pending_id' = '${pendingId}' AND NEW.metadata->>'status' = 'answered'
             AND COALESCE(OLD.metadata->>'status', '') <> 'answered' THEN
            PERFORM nextval('r4a_attempts');
            RAISE EXCEPTION 'r4a injected failure';
          END IF;
          RETURN NEW;
        END $$`);
      await t.db.query(`CREATE TRIGGER r4a_fail BEFORE UPDATE ON task_session_messages FOR EACH ROW EXECUTE FUNCTION r4a_fail()`);
      try {
        const before = await bundleRows(pendingId);
        const res = await respond(pendingId, { answers: ANSWERS });
        expect(res.status).toBe(500);
        const body = rawJson(res);
        expect(body.error).toEqual(expect.any(String));
        expect(res.text).not.toContain('r4a injected failure');
        const { rows } = await t.db.query<{ n: string }>(`SELECT last_value AS n FROM r4a_attempts`);
        expect(Number(rows[0]?.n)).toBe(1);
        expect(await bundleRows(pendingId)).toEqual(before);
        expect(await resumePromptCount(pendingId)).toBe(0);
      } finally {
        await t.db.query(`DROP TRIGGER r4a_fail ON task_session_messages`);
        await t.db.query(`DROP FUNCTION r4a_fail()`);
        await t.db.query(`DROP SEQUENCE r4a_attempts`);
      }
      const retry = await respond(pendingId, { answers: ANSWERS });
      expect(retry.status).toBe(200);
      expect(retry.body.claimed).toBe(true);
    });
  });

  describe('R6: restart between creation and resolution', () => {
    it('a new app instance on the same database claims the bundle exactly once', async () => {
      const first = await startApp();
      let second: TestApp | undefined;
      try {
        const fixture = await createRunningSession(first);
        const created = await request(first.baseUrl)
          .post('/api/v1/clarification/request')
          .send({ session_id: fixture.sessionId, questions: TWO_QUESTIONS })
          .expect(200);
        const pendingId = (created.body as { pending_id: string }).pending_id;
        const databaseUrl = first.databaseUrl;
        await first.close();

        second = await startApp({ databaseUrl });
        const db = second.db;
        expect(second.app.get(WaiterStore).waiterCount(pendingId)).toBe(0);
        const url = `/api/v1/clarification/${pendingId}/respond`;
        const winner = await request(second.baseUrl).post(url).send({ answers: ANSWERS });
        expect(winner.status).toBe(200);
        expect(rawJson(winner)).toEqual({
          success: true,
          claimed: true,
          status: 'answered',
          receipt: expect.any(String),
          response: { answers: ANSWERS, rejected: false, reject_reason: '' },
        });
        const again = await request(second.baseUrl).post(url).send({ rejected: true });
        expect(again.status).toBe(200);
        expect(rawJson(again)).toMatchObject({ claimed: false, status: 'answered', receipt: expect.any(String), response: { answers: ANSWERS } });
        expect(await resumePromptCount(pendingId, db)).toBe(1);
        expect((await bundleRows(pendingId, db)).map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
      } finally {
        await second?.close();
      }
    });
  });

  describe('R7/R7a: delivery through the winner', () => {
    it('R7a: a refused resume rolls the claim back (500, pending again); the retry succeeds with exactly one accepted POST', async () => {
      const statuses: number[] = [];
      const bodies: Json[] = [];
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
          const status = statuses.length === 0 ? 500 : 200;
          statuses.push(status);
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as AddressInfo).port;
        const { fixture, pendingId } = await freshBundle(t, { resumeUrl: `http://127.0.0.1:${port}/resume` });
        const before = await bundleRows(pendingId);
        const turnsBefore = await t.db.query(`SELECT id FROM task_session_turns WHERE task_session_id = $1 ORDER BY id`, [fixture.sessionId]);

        const refused = await respond(pendingId, { answers: ANSWERS });
        expect(refused.status).toBe(500);
        const body = rawJson(refused);
        expect(Object.keys(body)).toEqual(['error', 'code']);
        expect(body.error).toEqual(expect.any(String));
        expect(statuses).toEqual([500]);
        const rolledBack = await bundleRows(pendingId);
        expect(rolledBack.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
        expect(rolledBack.map((row) => [row.id, row.turn_id, row.metadata])).toEqual(before.map((row) => [row.id, row.turn_id, row.metadata]));
        const turnsAfter = await t.db.query(`SELECT id FROM task_session_turns WHERE task_session_id = $1 ORDER BY id`, [fixture.sessionId]);
        expect(turnsAfter.rows).toEqual(turnsBefore.rows);

        const retry = await respond(pendingId, { answers: ANSWERS });
        expect(retry.status).toBe(200);
        expect(rawJson(retry)).toEqual({
          success: true,
          claimed: true,
          status: 'answered',
          receipt: expect.any(String),
          response: { answers: ANSWERS, rejected: false, reject_reason: '' },
        });
        expect(statuses).toEqual([500, 200]);
        expect(bodies.map((b) => b.pending_id)).toEqual([pendingId, pendingId]);
        const rows = await bundleRows(pendingId);
        expect(rows.map((row) => row.metadata.status)).toEqual(['answered', 'answered']);
        expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
        expect(await successorTurnCount(pendingId)).toBe(1);
        // A loser after the accepted resume never triggers another POST.
        const loser = await respond(pendingId, { answers: ANSWERS });
        expect(loser.body.claimed).toBe(false);
        expect(statuses).toEqual([500, 200]);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    /** Starts a GET /:id/wait long poll and returns once its waiter is attached (the promise is wrapped so it is not awaited here). */
    async function startWaiting(pendingId: string): Promise<{ waiting: Promise<request.Response> }> {
      const waiting = api().get(`/api/v1/clarification/${pendingId}/wait`).then((res) => res);
      await eventually(() => (t.app.get(WaiterStore).waiterCount(pendingId) > 0 ? true : undefined));
      return { waiting };
    }

    it('R9: a rejection with a live waiter (GET /:id/wait) hands the waiter rejected:true and the reason; no resume', async () => {
      const { fixture, pendingId } = await freshBundle(t);
      const { waiting } = await startWaiting(pendingId);
      const res = await respond(pendingId, { rejected: true, reject_reason: '  not relevant any more ' });
      expect(res.status).toBe(200);
      expect(rawJson(res)).toEqual({
        success: true,
        claimed: true,
        status: 'rejected',
        receipt: expect.any(String),
        response: { answers: [], rejected: true, reject_reason: 'not relevant any more' },
      });
      const waited = await waiting;
      expect(waited.status).toBe(200);
      expect(waited.body).toMatchObject({ pending_id: pendingId, rejected: true, reject_reason: 'not relevant any more' });
      expect(waited.body.answers ?? []).toEqual([]);
      const rows = await bundleRows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
      expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
      expect(await resumePromptCount(pendingId)).toBe(0);
      expect(await successorTurnCount(pendingId)).toBe(0);
      const session = await api().get(`/api/v1/sessions/${fixture.sessionId}`).expect(200);
      expect(session.body.state).toBe('RUNNING');
    });

    it('R9: a rejection with no live waiter is persisted rejected without resuming the agent', async () => {
      const { pendingId } = await freshBundle(t);
      const res = await respond(pendingId, { rejected: true, reject_reason: 'User skipped' });
      expect(res.status).toBe(200);
      expect(rawJson(res)).toMatchObject({ claimed: true, status: 'rejected' });
      const rows = await bundleRows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['rejected', 'rejected']);
      expect(rows.map((row) => row.metadata.response_delivery_pending)).toEqual([undefined, undefined]);
      expect(await resumePromptCount(pendingId)).toBe(0);
      expect(await successorTurnCount(pendingId)).toBe(0);
    });

    it('R7: an answer with a live waiter is delivered in the same turn (the waiter gets the normalized answers; no resume)', async () => {
      const { pendingId } = await freshBundle(t);
      const { waiting } = await startWaiting(pendingId);
      const res = await respond(pendingId, { answers: [ANSWERS[1], { ...ANSWERS[0], custom_text: '  ' }] });
      expect(res.status).toBe(200);
      expect(res.body.claimed).toBe(true);
      const waited = await waiting;
      expect(waited.status).toBe(200);
      expect(waited.body).toMatchObject({ pending_id: pendingId, answers: ANSWERS, rejected: false });
      expect(await resumePromptCount(pendingId)).toBe(0);
      expect(await successorTurnCount(pendingId)).toBe(0);
    });
  });
});
