/**
 * Event lag: the event feed hands out an event once every transaction that got
 * its id before the event's own has ended (QuestionEventRepository's settled horizon). A transaction
 * has an id from its first write (a row lock included) to its commit, so the hot transactions that
 * write — the ask and the claim — make that write their last statement: nothing but COMMIT follows it.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';
import { captureStatements } from '../../support/statements.js';

const WRITES = /\b(INSERT\s+INTO|UPDATE\s+\w+(\s+\w+)?\s+SET|DELETE\s+FROM)\b|\bFOR\s+(NO\s+KEY\s+)?(UPDATE|SHARE)\b/i;
const BEGIN = /^\s*(START TRANSACTION|BEGIN)\b/i;
const COMMIT = /^\s*COMMIT\b/i;
const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];

/** Each transaction of a captured statement list: what it sent from its first write to its COMMIT. */
function afterFirstWrite(statements: string[]): string[][] {
  const transactions: string[][] = [];
  let open: string[] | undefined;
  for (const statement of statements) {
    if (BEGIN.test(statement)) open = [];
    else if (open && COMMIT.test(statement)) {
      const first = open.findIndex((sent) => WRITES.test(sent));
      transactions.push(first === -1 ? [] : open.slice(first));
      open = undefined;
    } else open?.push(statement);
  }
  return transactions;
}

describe('transactions that write events hold their id for one statement', () => {
  let t: TestApp;
  let capture: ReturnType<typeof captureStatements>;

  beforeAll(async () => {
    t = await startApp();
    capture = captureStatements(t);
  });
  afterAll(async () => {
    capture.restore();
    await t.close();
  });

  const ask = (sessionId: string) =>
    request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: sessionId, questions: TWO_QUESTIONS }).expect(200);

  it('an ask on a session with a turn: its one write, then COMMIT', async () => {
    const { sessionId } = await createRunningSession(t);
    const first = await ask(sessionId);
    await request(t.baseUrl).post(`/api/v1/clarification/${first.body.pending_id as string}/respond`).send({ answers: ANSWERS }).expect(200);
    const asked = await capture.during(() => ask(sessionId));
    const transactions = afterFirstWrite(asked.pool);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toHaveLength(1);
    expect(transactions[0][0]).toMatch(/INSERT INTO task_session_messages/);
  });

  it('a winning answer: the claim statement, then COMMIT', async () => {
    const { sessionId } = await createRunningSession(t);
    const asked = await ask(sessionId);
    const answered = await capture.during(() =>
      request(t.baseUrl).post(`/api/v1/clarification/${asked.body.pending_id as string}/respond`).send({ answers: ANSWERS }).expect(200),
    );
    expect(answered.result.body.claimed).toBe(true);
    const transactions = afterFirstWrite(answered.pool);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toHaveLength(1);
    expect(transactions[0][0]).toMatch(/UPDATE task_session_messages/);
  });
});
