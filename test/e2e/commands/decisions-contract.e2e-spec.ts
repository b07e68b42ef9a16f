/**
 * The answer_decision contract (the connector contract, docs/api/commands.md) through the real REST
 * surface on a real PostgreSQL: the pending payload and its decision_ref, the order of the six
 * typed failures, dry run by default, strict request validation, the option bounds, and the two
 * optional creation fields (`multi_select`, `kind`) on REST and on the in-session MCP ask. Test names
 * follow the reference suite where they mirror it.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { at, insertMessage, insertSession, insertTurn, rowsOfSession, setSessionState, uid } from '../../support/bundles.js';
import {
  answerRequest,
  ask,
  command,
  type CommandResult,
  databaseQuestion,
  decisionRefOf,
  interactionOf,
  pendingInteractions,
} from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, createUser, TWO_QUESTIONS } from '../../support/fixtures.js';
import { connectMcp } from '../../support/mcp.js';

/** A seeded one-bundle worker whose question is exactly `question` (shapes the API never creates). */
async function seedWorker(t: TestApp, question: Record<string, unknown>, extraQuestions: Record<string, unknown>[] = []) {
  const session = await insertSession(t.db);
  const turnId = await insertTurn(t.db, { ...session, startedAt: at(0) });
  const pendingId = uid('pending');
  const questions = [question, ...extraQuestions];
  for (const [index, q] of questions.entries()) {
    await insertMessage(t.db, {
      ...session,
      turnId,
      type: 'clarification_request',
      content: String(q.prompt),
      metadata: { pending_id: pendingId, question_id: q.id, question: q, question_index: index, question_total: questions.length, context: '', status: 'pending' },
      createdAt: new Date(at(1).getTime() + index),
    });
  }
  return { ...session, turnId, pendingId };
}

function optionsQuestion(count: number, extra: Record<string, unknown> = {}, writeIn = false): Record<string, unknown> {
  const options = Array.from({ length: count }, (_, i) => ({ option_id: `o${i + 1}`, label: `Option ${i + 1}`, description: '' }));
  if (writeIn) options.push({ option_id: 'custom', label: 'Type something', description: '' });
  return { id: 'q1', title: '', prompt: 'Choose one', options, ...extra };
}

async function receiptCount(t: TestApp): Promise<number> {
  const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM command_receipts`);
  return rows[0]?.n ?? -1;
}

async function bundleStatuses(t: TestApp, pendingId: string): Promise<unknown[]> {
  const { rows } = await t.db.query<{ status: string; response: unknown }>(
    `SELECT metadata->>'status' AS status, metadata->'response' AS response FROM task_session_messages
      WHERE metadata->>'pending_id' = $1 ORDER BY (metadata->>'question_index')::int`,
    [pendingId],
  );
  return rows;
}

function expectFailure(result: CommandResult, status: string, httpStatus: number, disposition = 'no_receipt'): void {
  expect({ http: result.httpStatus, ok: result.body.ok, status: result.body.status, disposition: result.body.disposition }).toEqual({
    http: httpStatus,
    ok: false,
    status,
    disposition,
  });
  expect(result.body.error?.code).toBe(status);
  expect(result.body.result).toBeNull();
}

describe('answer_decision: the contract', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('pending payload', () => {
    it('pending payload carries a stable structured decision and rotates its ref when the prompt changes', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
      const first = await interactionOf(t, fixture.sessionId);
      const decisionRef = first?.meta.decision?.decision_ref as string;
      expect(decisionRef).toMatch(/^decision-[0-9a-f]{24}$/);
      expect(first).toEqual({
        worker_id: fixture.sessionId,
        task_id: fixture.taskId,
        pending_id: pendingId,
        kind: 'question',
        status: 'open',
        question: 'Choose a database',
        question_count: 1,
        created_at: expect.any(String),
        meta: {
          decision: {
            decision_ref: decisionRef,
            kind: 'single',
            prompt: 'Choose a database',
            options: [
              { ref: '1', label: 'Postgres' },
              { ref: '2', label: 'SQLite' },
              { ref: '3', label: 'DuckDB' },
              { ref: '4', label: 'MySQL' },
            ],
            multi_select: false,
            question_count: 1,
          },
        },
      });
      // Stable while nothing changes.
      expect(await interactionOf(t, fixture.sessionId)).toEqual(first);

      // The agent asks again with another prompt: that bundle is the worker's decision now, with a new ref.
      const changedId = await ask(t, fixture.sessionId, [databaseQuestion({ prompt: 'Choose a durable database' })]);
      const second = await interactionOf(t, fixture.sessionId);
      expect(second?.pending_id).toBe(changedId);
      expect(second?.meta.decision?.prompt).toBe('Choose a durable database');
      expect(second?.meta.decision?.decision_ref).not.toBe(decisionRef);
      expectFailure(await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'rotated-old-ref' })), 'decision_not_pending', 409);

      // A new turn supersedes both bundles: no current decision, no item.
      await request(t.baseUrl).post(`/api/v1/sessions/${fixture.sessionId}/turns`).expect(201);
      expect(await interactionOf(t, fixture.sessionId)).toBeUndefined();
    });

    it('the same questions on another bundle or turn get another ref (pending_id and turn are part of the revision)', async () => {
      const a = await seedWorker(t, databaseQuestion({ title: '' }));
      const b = await seedWorker(t, databaseQuestion({ title: '' }));
      expect(await decisionRefOf(t, a.sessionId)).not.toBe(await decisionRefOf(t, b.sessionId));
    });

    it('a title prefixes the prompt; kind plan and multi_select come from the question', async () => {
      const fixture = await createRunningSession(t);
      await ask(t, fixture.sessionId, [{ ...databaseQuestion(), title: 'Database', multi_select: true }]);
      expect((await interactionOf(t, fixture.sessionId))?.meta.decision).toMatchObject({
        kind: 'multi',
        prompt: 'Database: Choose a database',
        multi_select: true,
      });
      const plan = await createRunningSession(t);
      await ask(t, plan.sessionId, [{ prompt: 'Approve the plan?', kind: 'plan', options: [{ label: 'Approve' }, { label: 'Revise' }] }]);
      expect((await interactionOf(t, plan.sessionId))?.meta.decision).toMatchObject({
        kind: 'plan',
        multi_select: false,
        options: [
          { ref: '1', label: 'Approve' },
          { ref: '2', label: 'Revise' },
        ],
      });
    });

    it('a multi-question bundle is listed with its question_count and no meta.decision', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, TWO_QUESTIONS);
      expect(await interactionOf(t, fixture.sessionId)).toMatchObject({ pending_id: pendingId, question: 'Which database?', question_count: 2, meta: {} });
    });

    it('lists only workers the caller may see; a closed worker or one without an active bundle is not listed', async () => {
      const alice = await createUser(t, 'alice-pending');
      const bob = await createUser(t, 'bob-pending');
      const scoped = await startApp({ databaseUrl: t.databaseUrl, config: { authMode: 'enabled' } });
      try {
        const own = await createRunningSession(scoped, { bearer: alice.token });
        await ask(scoped, own.sessionId, [databaseQuestion()], alice.token);
        const foreign = await createRunningSession(scoped, { bearer: bob.token });
        await ask(scoped, foreign.sessionId, [databaseQuestion()], bob.token);
        const closed = await createRunningSession(scoped, { bearer: alice.token });
        await ask(scoped, closed.sessionId, [databaseQuestion()], alice.token);
        await request(scoped.baseUrl).patch(`/api/v1/sessions/${closed.sessionId}`).set('authorization', `Bearer ${alice.token}`).send({ state: 'COMPLETED' }).expect(200);
        const idle = await createRunningSession(scoped, { bearer: alice.token });

        const seen = (await pendingInteractions(scoped, alice.token)).map((item) => item.worker_id);
        expect(seen).toContain(own.sessionId);
        expect(seen).not.toContain(foreign.sessionId);
        expect(seen).not.toContain(closed.sessionId);
        expect(seen).not.toContain(idle.sessionId);
        expect((await pendingInteractions(scoped, bob.token)).map((item) => item.worker_id)).toContain(foreign.sessionId);
        await request(scoped.baseUrl).get('/api/v1/pending-interactions').expect(401);
      } finally {
        await scoped.close();
      }
    });
  });

  describe('checks before any delivery', () => {
    it('answer_decision: a stale ref fails before delivery (decision_not_pending, nothing written)', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
      const before = await rowsOfSession(t.db, fixture.sessionId);
      const result = await command(t, answerRequest(fixture.sessionId, 'decision-stale', { requestId: 'stale-ref' }));
      expectFailure(result, 'decision_not_pending', 409);
      expect(result.body).toMatchObject({ schema_version: 2, action: 'answer_decision', request_id: 'stale-ref', dry_run: false, warnings: [] });
      expect(await rowsOfSession(t.db, fixture.sessionId)).toEqual(before);
      expect(await bundleStatuses(t, pendingId)).toEqual([{ status: 'pending', response: null }]);
      expect((await t.db.query(`SELECT 1 FROM command_receipts WHERE request_id = 'stale-ref'`)).rowCount).toBe(0);
    });

    it('answer_decision: omitted dry_run is preview only (status dry_run, no receipt, nothing answered)', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
      const decisionRef = await decisionRefOf(t, fixture.sessionId);
      const receipts = await receiptCount(t);
      const result = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'preview-1', dryRun: null }));
      expect(result.httpStatus).toBe(200);
      expect(result.body).toEqual({
        schema_version: 2,
        action: 'answer_decision',
        request_id: 'preview-1',
        ok: true,
        dry_run: true,
        status: 'dry_run',
        disposition: 'no_receipt',
        result: { target: { worker_id: fixture.sessionId }, decision: { decision_ref: decisionRef }, delivery_state: 'not_submitted' },
        error: null,
        warnings: [],
      });
      // dry_run: true explicitly, and without a request_id, is the same preview.
      const explicit = await command(t, { ...answerRequest(fixture.sessionId, decisionRef, { dryRun: true }), request_id: undefined });
      expect(explicit.body).toMatchObject({ ok: true, status: 'dry_run', dry_run: true, request_id: null, disposition: 'no_receipt' });
      expect(await receiptCount(t)).toBe(receipts);
      expect(await bundleStatuses(t, pendingId)).toEqual([{ status: 'pending', response: null }]);
      expect((await t.db.query(`SELECT 1 FROM decision_claims WHERE worker_id = $1`, [fixture.sessionId])).rowCount).toBe(0);
    });

    it('a dry run runs the same checks: a stale ref or a bad selection is reported, still without a receipt', async () => {
      const fixture = await createRunningSession(t);
      await ask(t, fixture.sessionId, [databaseQuestion()]);
      const decisionRef = await decisionRefOf(t, fixture.sessionId);
      const stale = await command(t, answerRequest(fixture.sessionId, 'decision-stale', { dryRun: true }));
      expectFailure(stale, 'decision_not_pending', 409);
      expect(stale.body.dry_run).toBe(true);
      const bad = await command(t, answerRequest(fixture.sessionId, decisionRef, { dryRun: null, selection: { option_refs: ['9'] } }));
      expectFailure(bad, 'invalid_selection', 400);
      expect(bad.body.error?.details).toEqual({ field: 'params.selection.option_refs' });
    });

    it('answer_decision: an unknown worker fails before delivery — missing, closed and not-yours are one answer', async () => {
      const missing = await command(t, answerRequest('worker-missing', 'decision-any', { requestId: 'unknown-1' }));
      expectFailure(missing, 'unknown_worker', 404);
      expect(missing.body.error?.message).toBe('target worker does not exist or is not open');

      const closed = await createRunningSession(t);
      await ask(t, closed.sessionId, [databaseQuestion()]);
      const closedRef = await decisionRefOf(t, closed.sessionId);
      await setSessionState(t.db, closed.sessionId, 'FAILED');
      const closedResult = await command(t, answerRequest(closed.sessionId, closedRef, { requestId: 'unknown-1' }));
      expect(closedResult.text).toBe(missing.text);

      const alice = await createUser(t, 'alice-unknown');
      const bob = await createUser(t, 'bob-unknown');
      const scoped = await startApp({ databaseUrl: t.databaseUrl, config: { authMode: 'enabled' } });
      try {
        const owned = await createRunningSession(scoped, { bearer: alice.token });
        const pendingId = await ask(scoped, owned.sessionId, [databaseQuestion()], alice.token);
        const ref = await decisionRefOf(scoped, owned.sessionId, alice.token);
        const foreign = await command(scoped, answerRequest(owned.sessionId, ref, { requestId: 'unknown-1' }), bob.token);
        expect(foreign.httpStatus).toBe(404);
        expect(foreign.text).toBe(missing.text);
        const foreignPreview = await command(scoped, answerRequest(owned.sessionId, ref, { dryRun: null }), bob.token);
        expect(foreignPreview.body.status).toBe('unknown_worker');
        expect(await bundleStatuses(scoped, pendingId)).toEqual([{ status: 'pending', response: null }]);
        // The owner answers it.
        expect((await command(scoped, answerRequest(owned.sessionId, ref, { requestId: 'owner-answers' }), alice.token)).body.status).toBe('accepted');
      } finally {
        await scoped.close();
      }
    });

    it.each([
      { label: 'an unknown ref', selection: { option_refs: ['9'] }, field: 'params.selection.option_refs' },
      { label: 'two refs on a single decision', selection: { option_refs: ['1', '2'] }, field: 'params.selection.option_refs' },
      { label: 'a repeated ref', selection: { option_refs: ['2', '2'] }, field: 'params.selection.option_refs' },
      { label: 'empty text', selection: { text: '' }, field: 'params.selection.text' },
      { label: 'both forms', selection: { option_refs: ['1'], text: 'both' }, field: 'params.selection' },
      { label: 'blank text', selection: { text: '   ' }, field: 'params.selection.text' },
      { label: 'neither form', selection: {}, field: 'params.selection' },
      { label: 'an empty option_refs', selection: { option_refs: [] }, field: 'params.selection.option_refs' },
      { label: 'a ref that is not a string', selection: { option_refs: [2] }, field: 'params.selection.option_refs' },
      { label: 'a zero-padded ref', selection: { option_refs: ['02'] }, field: 'params.selection.option_refs' },
      { label: 'text with an escape sequence', selection: { text: 'ok\u001b[2J' }, field: 'params.selection.text' },
      { label: 'text over 2000 characters', selection: { text: '😀'.repeat(2001) }, field: 'params.selection.text' },
    ])('answer_decision: an invalid selection fails before delivery — $label', async ({ selection, field }) => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
      const decisionRef = await decisionRefOf(t, fixture.sessionId);
      const result = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: uid('bad-selection'), selection }));
      expectFailure(result, 'invalid_selection', 400);
      expect(result.body.error?.details).toEqual({ field });
      expect(result.body.error?.message.startsWith(field)).toBe(true);
      expect(await bundleStatuses(t, pendingId)).toEqual([{ status: 'pending', response: null }]);
      expect((await t.db.query(`SELECT 1 FROM command_receipts WHERE worker_id = $1`, [fixture.sessionId])).rowCount).toBe(0);
    });

    it('answer_decision: refuses a multi-question decision before delivery (unsupported_decision)', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, TWO_QUESTIONS);
      const result = await command(t, answerRequest(fixture.sessionId, 'decision-any', { requestId: 'multi-question' }));
      expectFailure(result, 'unsupported_decision', 422);
      expect(result.body.error?.message).toMatch(/2 questions/);
      expect(await bundleStatuses(t, pendingId)).toEqual([
        { status: 'pending', response: null },
        { status: 'pending', response: null },
      ]);
    });

    it('answer_decision: rejects a plan write-in before delivery; a plan takes exactly one option', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [{ id: 'plan', prompt: 'Approve?', kind: 'plan', options: [{ label: 'Approve' }, { label: 'Revise' }] }]);
      const decisionRef = await decisionRefOf(t, fixture.sessionId);
      const writeIn = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'plan-write-in', selection: { text: 'Revise this plan' } }));
      expectFailure(writeIn, 'invalid_selection', 400);
      expect(writeIn.body.error?.message).toBe('params.selection.text is accepted only by a single decision; this one is plan');
      expectFailure(await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'plan-two', selection: { option_refs: ['1', '2'] } })), 'invalid_selection', 400);
      const approve = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'plan-approve', selection: { option_refs: ['1'] } }));
      expect(approve.body).toMatchObject({ ok: true, status: 'accepted', disposition: 'terminal_accepted' });
      expect(await bundleStatuses(t, pendingId)).toEqual([
        { status: 'answered', response: { question_id: 'plan', selected_options: ['q1_opt1'], custom_text: '' } },
      ]);
    });

    it('a multi decision takes one or more unique refs; text is refused', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [databaseQuestion({ multi_select: true })]);
      const decisionRef = await decisionRefOf(t, fixture.sessionId);
      expectFailure(await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'multi-text', selection: { text: 'all' } })), 'invalid_selection', 400);
      const result = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'multi-two', selection: { option_refs: ['3', '1'] } }));
      expect(result.body.status).toBe('accepted');
      expect(await bundleStatuses(t, pendingId)).toEqual([
        { status: 'answered', response: { question_id: 'db', selected_options: ['postgres', 'duckdb'], custom_text: '' } },
      ]);
    });

    it('a single decision takes write-in text as the answer’s custom text', async () => {
      const fixture = await createRunningSession(t);
      const pendingId = await ask(t, fixture.sessionId, [databaseQuestion()]);
      const decisionRef = await decisionRefOf(t, fixture.sessionId);
      const result = await command(t, answerRequest(fixture.sessionId, decisionRef, { requestId: 'write-in', selection: { text: 'Use another database' } }));
      expect(result.body.status).toBe('accepted');
      expect(await bundleStatuses(t, pendingId)).toEqual([
        { status: 'answered', response: { question_id: 'db', selected_options: [], custom_text: 'Use another database' } },
      ]);
    });

    it('the order of checks: unknown_worker, unsupported_decision, decision_not_pending, invalid_selection, answer_in_progress', async () => {
      const badSelection = { option_refs: ['99'] };
      // 1 beats everything: a missing worker with a stale ref and a bad selection.
      expect((await command(t, answerRequest('missing-worker', 'decision-stale', { requestId: 'order-1', selection: badSelection }))).body.status).toBe('unknown_worker');
      // 2 beats 3 and 5: an unsupported decision with a stale ref and a bad selection.
      const tenOptions = await seedWorker(t, optionsQuestion(10));
      expect((await command(t, answerRequest(tenOptions.sessionId, 'decision-stale', { requestId: 'order-2', selection: badSelection }))).body.status).toBe(
        'unsupported_decision',
      );
      // 3 beats 5.
      const worker = await createRunningSession(t);
      await ask(t, worker.sessionId, [databaseQuestion()]);
      const decisionRef = await decisionRefOf(t, worker.sessionId);
      expect((await command(t, answerRequest(worker.sessionId, 'decision-stale', { requestId: 'order-3', selection: badSelection }))).body.status).toBe(
        'decision_not_pending',
      );
      // 5 beats 6: another request holds the decision, yet the bad selection is what is reported.
      await t.db.query(
        `INSERT INTO decision_claims (worker_id, claim_token_hash, caller_key, request_id, decision_ref, state, claimed_at, expires_at)
         VALUES ($1, 'someone-else', 'synthetic', 'other-request', $2, 'claimed', now(), now() + interval '1 hour')`,
        [worker.sessionId, decisionRef],
      );
      expect((await command(t, answerRequest(worker.sessionId, decisionRef, { requestId: 'order-5', selection: badSelection }))).body.status).toBe(
        'invalid_selection',
      );
      const held = await command(t, answerRequest(worker.sessionId, decisionRef, { requestId: 'order-6' }));
      expectFailure(held, 'answer_in_progress', 409);
      expect(held.body.error?.message).toBe('another request is currently answering this decision');
      // A worker without any bundle has no pending decision.
      const idle = await createRunningSession(t);
      expect((await command(t, answerRequest(idle.sessionId, 'decision-any', { requestId: 'order-idle' }))).body.status).toBe('decision_not_pending');
    });
  });

  describe('option bounds', () => {
    it('decision option bound accepts exactly nine (and ref "9" answers the ninth option)', async () => {
      const worker = await seedWorker(t, optionsQuestion(9));
      const decision = (await interactionOf(t, worker.sessionId))?.meta.decision;
      expect(decision?.options.map((option) => option.ref)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
      const result = await command(t, answerRequest(worker.sessionId, decision?.decision_ref as string, { requestId: 'nine', selection: { option_refs: ['9'] } }));
      expect(result.body.status).toBe('accepted');
      expect(await bundleStatuses(t, worker.pendingId)).toEqual([{ status: 'answered', response: { question_id: 'q1', selected_options: ['o9'], custom_text: '' } }]);
    });

    it('decision option bound accepts nine plus a trailing write-in row (not exposed as a ref; answered with text)', async () => {
      const worker = await seedWorker(t, optionsQuestion(9, {}, true));
      const decision = (await interactionOf(t, worker.sessionId))?.meta.decision;
      expect(decision?.options).toHaveLength(9);
      expect(decision?.options.map((option) => option.label)).not.toContain('Type something');
      expectFailure(await command(t, answerRequest(worker.sessionId, decision?.decision_ref as string, { requestId: 'ten-ref', selection: { option_refs: ['10'] } })), 'invalid_selection', 400);
      const result = await command(t, answerRequest(worker.sessionId, decision?.decision_ref as string, { requestId: 'nine-write-in', selection: { text: 'Something else' } }));
      expect(result.body.status).toBe('accepted');
    });

    it.each([
      { label: 'ten real options', question: () => optionsQuestion(10) },
      { label: 'a custom row after ten real options', question: () => optionsQuestion(10, {}, true) },
      { label: 'an unknown kind', question: () => optionsQuestion(2, { kind: 'FutureDecisionKind' }) },
      { label: 'a plan that claims multi_select', question: () => optionsQuestion(2, { kind: 'plan', multi_select: true }) },
    ])('an over-bound or unknown decision fails closed without delivery — $label: no meta.decision, never truncated', async ({ question }) => {
      const worker = await seedWorker(t, question());
      const item = await interactionOf(t, worker.sessionId);
      expect(item?.meta).toEqual({});
      const result = await command(t, answerRequest(worker.sessionId, 'decision-unsupported-bound', { requestId: uid('bound') }));
      expectFailure(result, 'unsupported_decision', 422);
      expect(await bundleStatuses(t, worker.pendingId)).toEqual([{ status: 'pending', response: null }]);
    });
  });

  describe('strict request validation (400 invalid_request naming the field, nothing written)', () => {
    let workerId: string;
    let decisionRef: string;
    let pendingId: string;
    beforeAll(async () => {
      const fixture = await createRunningSession(t);
      workerId = fixture.sessionId;
      pendingId = await ask(t, workerId, [databaseQuestion()]);
      decisionRef = await decisionRefOf(t, workerId);
    });
    const valid = () => answerRequest(workerId, decisionRef, { requestId: 'strict-1' });
    const withParams = (params: Record<string, unknown>) => ({ ...valid(), params });

    it.each([
      { label: 'an array body', body: () => [valid()], message: 'request must be a JSON object' },
      { label: 'an unknown top-level field', body: () => ({ ...valid(), priority: 'high' }), message: 'request contains unknown top-level fields: priority' },
      { label: 'an instruction', body: () => ({ ...valid(), instruction: { text: 'x' } }), message: 'request contains unknown top-level fields: instruction' },
      { label: 'schema_version missing', body: () => ({ ...valid(), schema_version: undefined }), message: 'schema_version must be 1', field: 'schema_version' },
      { label: 'schema_version "1"', body: () => ({ ...valid(), schema_version: '1' }), message: 'schema_version must be 1', field: 'schema_version' },
      { label: 'schema_version true', body: () => ({ ...valid(), schema_version: true }), message: 'schema_version must be 1', field: 'schema_version' },
      { label: 'schema_version 2', body: () => ({ ...valid(), schema_version: 2 }), message: 'schema_version must be 1', field: 'schema_version' },
      { label: 'dry_run "false"', body: () => ({ ...valid(), dry_run: 'false' }), message: 'dry_run must be a JSON boolean', field: 'dry_run' },
      { label: 'dry_run 0', body: () => ({ ...valid(), dry_run: 0 }), message: 'dry_run must be a JSON boolean', field: 'dry_run' },
      { label: 'dry_run null', body: () => ({ ...valid(), dry_run: null }), message: 'dry_run must be a JSON boolean', field: 'dry_run' },
      { label: 'another action', body: () => ({ ...valid(), action: 'send_instruction' }), message: 'action must be "answer_decision"', field: 'action' },
      { label: 'a live request without request_id', body: () => ({ ...valid(), request_id: undefined }), message: 'a live answer_decision (dry_run: false) requires a request_id', field: 'request_id' },
      { label: 'a request_id with a space', body: () => ({ ...valid(), request_id: 'req 1' }), message: 'request_id must match [A-Za-z0-9._-]{1,128}', field: 'request_id' },
      { label: 'an empty request_id', body: () => ({ ...valid(), request_id: '' }), message: 'request_id must match [A-Za-z0-9._-]{1,128}', field: 'request_id' },
      { label: 'a 129-character request_id', body: () => ({ ...valid(), request_id: 'r'.repeat(129) }), message: 'request_id must match [A-Za-z0-9._-]{1,128}', field: 'request_id' },
      { label: 'a numeric request_id', body: () => ({ ...valid(), request_id: 42 }), message: 'request_id must match [A-Za-z0-9._-]{1,128}', field: 'request_id' },
      { label: 'a request_id with padding', body: () => ({ ...valid(), request_id: ' strict-1 ' }), message: 'request_id must match [A-Za-z0-9._-]{1,128}', field: 'request_id' },
      { label: 'no target', body: () => ({ ...valid(), target: undefined }), message: 'target must contain exactly worker_id', field: 'target' },
      { label: 'a target selector beside worker_id', body: () => ({ ...valid(), target: { worker_id: workerId, name: 'Alpha' } }), message: 'target must contain exactly worker_id', field: 'target' },
      { label: 'a blank worker_id', body: () => ({ ...valid(), target: { worker_id: ' ' } }), message: 'target.worker_id must be a non-empty string', field: 'target.worker_id' },
      { label: 'no params', body: () => ({ ...valid(), params: undefined }), message: 'params must contain exactly decision_ref and selection', field: 'params' },
      { label: 'an extra param', body: () => withParams({ decision_ref: decisionRef, selection: { option_refs: ['1'] }, pending_id: pendingId }), message: 'params must contain exactly decision_ref and selection', field: 'params' },
      { label: 'a blank decision_ref', body: () => withParams({ decision_ref: '', selection: { option_refs: ['1'] } }), message: 'params.decision_ref must be a non-empty string', field: 'params.decision_ref' },
    ])('$label', async ({ body, message, field }) => {
      const receipts = await receiptCount(t);
      const result = await command(t, body());
      expectFailure(result, 'invalid_request', 400);
      expect(result.body.error?.message).toBe(message);
      if (field) expect(result.body.error?.details).toEqual({ field });
      expect(await receiptCount(t)).toBe(receipts);
      expect(await bundleStatuses(t, pendingId)).toEqual([{ status: 'pending', response: null }]);
    });

    it.each([
      { label: 'a pane id in params', body: () => withParams({ decision_ref: decisionRef, selection: { option_refs: ['1'] }, pane_id: '%3' }), paths: ['$.params.pane_id'] },
      { label: 'raw keys at the top', body: () => ({ ...valid(), keys: ['Down', 'Enter'] }), paths: ['$.keys'] },
      { label: 'a terminal id in the target (any spelling)', body: () => ({ ...valid(), target: { worker_id: workerId, terminalId: 't1' } }), paths: ['$.target.terminalId'] },
      { label: 'calibration steps inside the selection', body: () => withParams({ decision_ref: decisionRef, selection: { option_refs: ['1'], 'calibration-steps': [] } }), paths: ['$.params.selection.calibration-steps'] },
      { label: 'a cursor movement nested in an array', body: () => withParams({ decision_ref: decisionRef, selection: { option_refs: [{ cursor: 'up' }] } }), paths: ['$.params.selection.option_refs[0].cursor'] },
    ])('transport fields are refused anywhere: $label', async ({ body, paths }) => {
      const result = await command(t, body());
      expectFailure(result, 'invalid_request', 400);
      expect(result.body.error?.message).toBe(`request contains forbidden connector or terminal fields: ${paths.join(', ')}`);
      expect(result.body.error?.details).toEqual({ fields: paths });
    });

    it('an invalid request echoes only what it can: no request_id unless valid, and never a live dry_run without one', async () => {
      const result = await command(t, { ...valid(), request_id: 'bad id', priority: 1 });
      expect(result.body).toMatchObject({ action: 'answer_decision', request_id: null, dry_run: true });
      const notAnObject = await command(t, 'answer');
      expect(notAnObject.body).toMatchObject({ schema_version: 2, action: '', request_id: null, ok: false, dry_run: true, status: 'invalid_request' });
    });

    it('malformed JSON is a 400 before the command runs', async () => {
      const res = await request(t.baseUrl).post('/api/v1/commands').set('content-type', 'application/json').send('{"schema_version": 1,');
      expect(res.status).toBe(400);
    });

    it('request ids are never trimmed or case-folded: req-A and req-a are two requests', async () => {
      const fixture = await createRunningSession(t);
      await ask(t, fixture.sessionId, [databaseQuestion()]);
      const ref = await decisionRefOf(t, fixture.sessionId);
      expect((await command(t, answerRequest(fixture.sessionId, ref, { requestId: 'req-A' }))).body.status).toBe('accepted');
      const other = await command(t, answerRequest(fixture.sessionId, ref, { requestId: 'req-a' }));
      expect(other.body).toMatchObject({ request_id: 'req-a', status: 'decision_not_pending', disposition: 'no_receipt' });
    });
  });

  describe('creation fields multi_select and kind', () => {
    it('REST: stored in the question metadata only when given; bad values are a 400 naming the field', async () => {
      const fixture = await createRunningSession(t);
      const plain = await ask(t, fixture.sessionId, [databaseQuestion()]);
      const { rows } = await t.db.query<{ question: Record<string, unknown> }>(
        `SELECT metadata->'question' AS question FROM task_session_messages WHERE metadata->>'pending_id' = $1`,
        [plain],
      );
      expect(Object.keys(rows[0]?.question ?? {}).sort()).toEqual(['id', 'options', 'prompt', 'title']);

      const other = await createRunningSession(t);
      const multi = await ask(t, other.sessionId, [{ ...databaseQuestion(), multi_select: true, kind: 'single' }]);
      const stored = await t.db.query<{ question: Record<string, unknown> }>(
        `SELECT metadata->'question' AS question FROM task_session_messages WHERE metadata->>'pending_id' = $1`,
        [multi],
      );
      expect(stored.rows[0]?.question).toMatchObject({ multi_select: true, kind: 'single' });

      for (const [question, error] of [
        [{ ...databaseQuestion(), multi_select: 'yes' }, 'questions[0].multi_select must be a boolean'],
        [{ ...databaseQuestion(), kind: 'multi' }, 'questions[0].kind must be "single" or "plan"'],
        [{ ...databaseQuestion(), kind: 'plan', multi_select: true }, 'questions[0].multi_select cannot be true when kind is "plan"'],
      ] as const) {
        const fresh = await createRunningSession(t);
        const res = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: fresh.sessionId, questions: [question] });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error, code: 'VALIDATION_ERROR' } });
        expect(await rowsOfSession(t.db, fresh.sessionId)).toEqual([]);
      }
    });

    it('MCP ask: an agent asks a multi_select question in-session and a command answers it with two refs', async () => {
      const fixture = await createRunningSession(t);
      const agent = await connectMcp(t.baseUrl, { bearer: fixture.agentToken, path: '/mcp/session' });
      try {
        const asking = agent.call('ask_user_question_kandev', { questions: [{ ...databaseQuestion(), multi_select: true }] });
        const decision = await eventually(async () => (await interactionOf(t, fixture.sessionId))?.meta.decision, 10_000, 'the asked decision');
        expect(decision).toMatchObject({ kind: 'multi', multi_select: true });
        const result = await command(t, answerRequest(fixture.sessionId, decision.decision_ref, { requestId: 'mcp-multi', selection: { option_refs: ['4', '2'] } }));
        expect(result.body.status).toBe('accepted');
        const answered = await asking;
        expect(answered.isError).toBe(false);
        expect(answered.structured).toEqual({ db: { selected_option: 'sqlite', selected_options: ['sqlite', 'mysql'] } });
        const bad = await agent.call('ask_user_question_kandev', { questions: [{ ...databaseQuestion(), kind: 'multi' }] });
        expect(bad.isError).toBe(true);
        expect(bad.text).toMatch(/kind/);
      } finally {
        await agent.close();
      }
    });
  });
});
