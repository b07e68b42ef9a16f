import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { type Answer } from '#clarification';
import { CLARIFICATION_REQUEST, upsertBundleIndexSql } from '#tasks';

/**
 * Fixtures that write sessions, turns and clarification rows straight into the database with SQL,
 * so the tests can arrange states the public API never produces (legacy, corrupt, superseded,
 * tie-broken turns) and pin every timestamp that takes part in an ordering.
 */

export type Db = Pick<pg.Pool, 'query'>;

/**
 * The fixtures write rows the way legacy data or a hand edit would — behind the service's back — so
 * they bring the bundle index up to date afterwards, as the migration does for existing data.
 */
export async function syncBundleIndex(db: Db): Promise<void> {
  await db.query(
    upsertBundleIndexSql(
      `SELECT DISTINCT metadata->>'pending_id' FROM task_session_messages WHERE type = '${CLARIFICATION_REQUEST}' AND metadata ? 'pending_id'`,
    ),
  );
}

/** An instant an hour before the run started: explicit timestamps stay older than `clock_timestamp()`. */
const BASE_MS = Date.now() - 60 * 60 * 1000;

/** `BASE + seconds`: explicit `started_at` / `created_at` values for the fixtures. */
export function at(seconds: number): Date {
  return new Date(BASE_MS + seconds * 1000);
}

export function uid(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

export interface SeededSession {
  taskId: string;
  sessionId: string;
}

export async function insertSession(
  db: Db,
  options: { state?: string; taskId?: string; sessionId?: string; workspaceId?: string } = {},
): Promise<SeededSession> {
  const taskId = options.taskId ?? uid('task');
  const sessionId = options.sessionId ?? uid('session');
  await db.query(
    `INSERT INTO tasks (id, workspace_id, title, state) VALUES ($1, $2, 'seeded task', 'IN_PROGRESS')
     ON CONFLICT (id) DO NOTHING`,
    [taskId, options.workspaceId ?? ''],
  );
  await db.query(`INSERT INTO task_sessions (id, task_id, state, agent_token_sha256, resume_url) VALUES ($1, $2, $3, $4, '')`, [
    sessionId,
    taskId,
    options.state ?? 'RUNNING',
    randomBytes(32).toString('hex'),
  ]);
  return { taskId, sessionId };
}

export interface TurnOptions {
  sessionId: string;
  taskId: string;
  startedAt: Date;
  /** Defaults to `startedAt`. */
  createdAt?: Date;
  id?: string;
  metadata?: Record<string, unknown>;
}

export async function insertTurn(db: Db, options: TurnOptions): Promise<string> {
  const id = options.id ?? uid('turn');
  await db.query(
    `INSERT INTO task_session_turns (id, task_session_id, task_id, started_at, metadata, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6)`,
    [id, options.sessionId, options.taskId, options.startedAt, JSON.stringify(options.metadata ?? {}), options.createdAt ?? options.startedAt],
  );
  await syncBundleIndex(db);
  return id;
}

export interface MessageOptions {
  sessionId: string;
  taskId: string;
  turnId: string | null;
  id?: string;
  type?: string;
  authorType?: string;
  content?: string;
  metadata?: Record<string, unknown>;
  createdAt: Date;
}

export async function insertMessage(db: Db, options: MessageOptions): Promise<string> {
  const id = options.id ?? uid('msg');
  await db.query(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9)`,
    [
      id,
      options.sessionId,
      options.taskId,
      options.turnId,
      options.authorType ?? 'agent',
      options.type ?? 'message',
      options.content ?? '',
      JSON.stringify(options.metadata ?? {}),
      options.createdAt,
    ],
  );
  await syncBundleIndex(db);
  return id;
}

/** One question row of a seeded bundle. */
export interface QuestionSpec {
  /** Defaults to `q{i}`; `null` leaves `question_id` out of the metadata. */
  questionId?: string | null;
  /** Defaults to 'pending'; `null` leaves `status` out of the metadata (a legacy row). */
  status?: string | null;
  /** Merged into the row's metadata last (e.g. `response`, `agent_disconnected`). */
  extra?: Record<string, unknown>;
}

export interface BundleOptions {
  sessionId: string;
  taskId: string;
  turnId: string;
  createdAt: Date;
  pendingId?: string;
  /** A count of plain pending questions, or one spec per row. */
  questions?: number | QuestionSpec[];
  context?: string;
}

export interface SeededBundle {
  pendingId: string;
  rowIds: string[];
  /** The question ids as written (`undefined` where the row has none). */
  questionIds: Array<string | undefined>;
}

export function questionObject(questionId: string, index: number) {
  return {
    id: questionId,
    title: `Question ${index + 1}`,
    prompt: `Prompt ${index + 1}?`,
    options: [
      { option_id: `${questionId}_opt1`, label: 'Yes', description: 'first' },
      { option_id: `${questionId}_opt2`, label: 'No', description: 'second' },
    ],
  };
}

/**
 * A bundle: one `clarification_request` row per question with the metadata the service writes
 * ({pending_id, question_id, question, question_index, question_total, context, status:'pending'}).
 * Row i is created at `createdAt + i ms`.
 */
export async function insertBundle(db: Db, options: BundleOptions): Promise<SeededBundle> {
  const pendingId = options.pendingId ?? uid('pending');
  const specs: QuestionSpec[] =
    typeof options.questions === 'number' || options.questions === undefined
      ? Array.from({ length: options.questions ?? 2 }, () => ({}))
      : options.questions;
  const rowIds: string[] = [];
  const questionIds: Array<string | undefined> = [];
  for (const [index, spec] of specs.entries()) {
    const questionId = spec.questionId === null ? undefined : (spec.questionId ?? `q${index + 1}`);
    const question = questionObject(questionId ?? `q${index + 1}`, index);
    const metadata: Record<string, unknown> = {
      pending_id: pendingId,
      question,
      question_index: index,
      question_total: specs.length,
      context: options.context ?? 'seeded context',
    };
    if (questionId !== undefined) metadata.question_id = questionId;
    if (spec.status !== null) metadata.status = spec.status ?? 'pending';
    Object.assign(metadata, spec.extra ?? {});
    rowIds.push(
      await insertMessage(db, {
        sessionId: options.sessionId,
        taskId: options.taskId,
        turnId: options.turnId,
        type: 'clarification_request',
        content: question.prompt,
        metadata,
        createdAt: new Date(options.createdAt.getTime() + index),
      }),
    );
    questionIds.push(questionId);
  }
  return { pendingId, rowIds, questionIds };
}

export interface LiveBundle extends SeededSession, SeededBundle {
  turnId: string;
}

/** A session (RUNNING unless told), one turn started at `at(0)`, and a bundle on it created at `at(1)`. */
export async function seedLiveBundle(
  db: Db,
  options: { state?: string; questions?: number | QuestionSpec[]; pendingId?: string } = {},
): Promise<LiveBundle> {
  const session = await insertSession(db, { state: options.state ?? 'RUNNING' });
  const turnId = await insertTurn(db, { ...session, startedAt: at(0) });
  const bundle = await insertBundle(db, {
    ...session,
    turnId,
    createdAt: at(1),
    questions: options.questions ?? 2,
    ...(options.pendingId ? { pendingId: options.pendingId } : {}),
  });
  return { ...session, turnId, ...bundle };
}

/** A row as stored: `metadata_text` and `updated_at` (microseconds) make "nothing written" checkable. */
export interface StoredRow {
  id: string;
  task_session_id: string;
  turn_id: string | null;
  type: string;
  metadata: Record<string, unknown>;
  metadata_text: string;
  updated_at: string;
}

const STORED_COLUMNS = `id, task_session_id, turn_id, type, metadata, metadata::text AS metadata_text, updated_at::text AS updated_at`;

/** Every row carrying this pending_id (any type), in question order. */
export async function rowsOfPendingId(db: Db, pendingId: string): Promise<StoredRow[]> {
  const { rows } = await db.query<StoredRow>(
    `SELECT ${STORED_COLUMNS} FROM task_session_messages WHERE metadata->>'pending_id' = $1
      ORDER BY (metadata->>'question_index')::int NULLS LAST, created_at, id`,
    [pendingId],
  );
  return rows;
}

/** The given rows, in the order of `ids`. */
export async function rowsById(db: Db, ids: readonly string[]): Promise<StoredRow[]> {
  const { rows } = await db.query<StoredRow>(`SELECT ${STORED_COLUMNS} FROM task_session_messages WHERE id = ANY($1::text[])`, [ids]);
  return ids.map((id) => {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) throw new Error(`row ${id} not found`);
    return row;
  });
}

/** The rows of a session, ordered by id: a snapshot for "nothing else changed" comparisons. */
export async function rowsOfSession(db: Db, sessionId: string): Promise<StoredRow[]> {
  const { rows } = await db.query<StoredRow>(`SELECT ${STORED_COLUMNS} FROM task_session_messages WHERE task_session_id = $1 ORDER BY id`, [
    sessionId,
  ]);
  return rows;
}

export async function setSessionState(db: Db, sessionId: string, state: string): Promise<void> {
  await db.query(`UPDATE task_sessions SET state = $2 WHERE id = $1`, [sessionId, state]);
  await syncBundleIndex(db);
}

/** An answer picking the question's first (defaulted) option, with `text` as custom text. */
export function answer(questionId: string, text: string): Answer {
  return { question_id: questionId, selected_options: [`${questionId}_opt1`], custom_text: text };
}

/** The claim's responses map: one such answer per question id. */
export function answersFor(questionIds: readonly string[], text: string): Map<string, Answer> {
  return new Map(questionIds.map((questionId) => [questionId, answer(questionId, text)]));
}

/**
 * `count` one-question bundles (pending ids bulk-001…) on one turn, written in one statement,
 * one second apart from `from`.
 */
export async function insertBulkBundles(
  db: Db,
  target: { sessionId: string; taskId: string; turnId: string },
  count: number,
  from: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata, created_at)
     SELECT 'bulk-' || n, $1, $2, $3, 'agent', 'clarification_request', 'q',
            jsonb_build_object('pending_id', 'bulk-' || lpad(n::text, 3, '0'), 'question_id', 'q1', 'question_index', 0,
              'question_total', 1, 'status', 'pending', 'context', '',
              'question', jsonb_build_object('id', 'q1', 'title', 't', 'prompt', 'p', 'options', '[]'::jsonb)),
            $4::timestamptz + make_interval(secs => n)
       FROM generate_series(1, $5::int) AS n`,
    [target.sessionId, target.taskId, target.turnId, from, count],
  );
  await syncBundleIndex(db);
}
