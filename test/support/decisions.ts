import request from 'supertest';
import type { TestApp } from './app.js';

/** One POST /api/v1/commands: the HTTP status, the raw body text (for byte-for-byte checks) and it parsed. */
export interface CommandResult {
  httpStatus: number;
  text: string;
  body: {
    schema_version: number;
    action: string;
    request_id: string | null;
    ok: boolean;
    dry_run: boolean;
    status: string;
    disposition: string;
    result: Record<string, unknown> | null;
    error: { code: string; message: string; details: Record<string, unknown> } | null;
    warnings: string[];
  };
}

export async function command(t: Pick<TestApp, 'baseUrl'>, body: unknown, bearer?: string): Promise<CommandResult> {
  const req = request(t.baseUrl).post('/api/v1/commands').set('content-type', 'application/json');
  if (bearer) req.set('authorization', `Bearer ${bearer}`);
  const res = await req.send(JSON.stringify(body));
  return { httpStatus: res.status, text: res.text, body: JSON.parse(res.text) as CommandResult['body'] };
}

export interface DecisionView {
  decision_ref: string;
  kind: string;
  prompt: string;
  options: Array<{ ref: string; label: string }>;
  multi_select: boolean;
  question_count: number;
}

export interface PendingInteraction {
  worker_id: string;
  task_id: string;
  pending_id: string;
  kind: string;
  status: string;
  question: string;
  question_count: number;
  created_at: string;
  meta: { decision?: DecisionView };
}

export async function pendingInteractions(t: Pick<TestApp, 'baseUrl'>, bearer?: string): Promise<PendingInteraction[]> {
  const req = request(t.baseUrl).get('/api/v1/pending-interactions');
  if (bearer) req.set('authorization', `Bearer ${bearer}`);
  const res = await req.expect(200);
  expect(res.body.schema_version).toBe(1);
  return res.body.pending_interactions as PendingInteraction[];
}

export async function interactionOf(t: Pick<TestApp, 'baseUrl'>, workerId: string, bearer?: string): Promise<PendingInteraction | undefined> {
  return (await pendingInteractions(t, bearer)).find((item) => item.worker_id === workerId);
}

/** The worker's current decision_ref (fails when it has none). */
export async function decisionRefOf(t: Pick<TestApp, 'baseUrl'>, workerId: string, bearer?: string): Promise<string> {
  const item = await interactionOf(t, workerId, bearer);
  const ref = item?.meta.decision?.decision_ref;
  if (!ref) throw new Error(`worker ${workerId} has no decision: ${JSON.stringify(item)}`);
  return ref;
}

export type Selection = { option_refs: string[] } | { text: string } | Record<string, unknown>;

/** A live answer_decision request (dry_run: false), as a connector sends it. */
export function answerRequest(
  workerId: string,
  decisionRef: string,
  options: { requestId?: string; selection?: Selection; dryRun?: boolean | null } = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    schema_version: 1,
    action: 'answer_decision',
    request_id: options.requestId ?? 'decision-request-1',
    target: { worker_id: workerId },
    params: { decision_ref: decisionRef, selection: options.selection ?? { option_refs: ['2'] } },
  };
  if (options.dryRun !== null) body.dry_run = options.dryRun ?? false;
  return body;
}

/** Asks one bundle through REST (the agent's side) and returns its pending_id. */
export async function ask(t: Pick<TestApp, 'baseUrl'>, sessionId: string, questions: unknown[], bearer?: string): Promise<string> {
  const req = request(t.baseUrl).post('/api/v1/clarification/request');
  if (bearer) req.set('authorization', `Bearer ${bearer}`);
  const res = await req.send({ session_id: sessionId, questions });
  if (res.status !== 200) throw new Error(`ask failed: ${res.status} ${res.text}`);
  return res.body.pending_id as string;
}

/** The four-option single-choice question of the reference suite. */
export function databaseQuestion(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'db',
    prompt: 'Choose a database',
    options: [
      { option_id: 'postgres', label: 'Postgres' },
      { option_id: 'sqlite', label: 'SQLite' },
      { option_id: 'duckdb', label: 'DuckDB' },
      { option_id: 'mysql', label: 'MySQL' },
    ],
    ...overrides,
  };
}
