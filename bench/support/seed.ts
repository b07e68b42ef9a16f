import { createHash } from 'node:crypto';
import type pg from 'pg';
import { upsertBundleIndexSql } from '#tasks';

export const WORKSPACES = 1000;
/** Workspace w belongs to the scoped user when w % SCOPED_EVERY === 0: 10 of the 1,000, spread out. */
export const SCOPED_EVERY = 100;

export interface SeedOptions {
  /** Active bundles; bundle i is the only bundle of task i, in workspace i % 1000. */
  bundles: number;
  /** Owner of the scoped user's 10 workspaces (the id the admin API returned). */
  scopedUserId?: string;
  /** Owner of the 500 odd-numbered workspaces (a caller who sees half of them). */
  halfUserId?: string;
  /** A member (not the owner) of the scoped user's 10 workspaces: sees what the scoped user sees, through membership. */
  memberUserId?: string;
  /** Owner of every workspace (overrides the two above): one user who may answer every bundle. */
  ownerId?: string;
  /** Questions per bundle: 1, or the default `1or2` (bundle i has 2 rows when i is even). */
  questions?: 1 | '1or2';
  /** Session state of every seeded session (RUNNING). */
  sessionState?: string;
}

export interface SeedResult {
  bundles: number;
  rows: number;
  /** Bundles in the scoped user's workspaces. */
  scopedBundles: number;
  seconds: number;
}

/** Identifiers the seed gives bundle i (keys are zero-padded, so no id is a prefix of another). */
export function seededIds(i: number): { pendingId: string; sessionId: string; taskId: string; turnId: string; workspaceId: string } {
  const k = String(i).padStart(7, '0');
  return {
    pendingId: pendingIdOf(i),
    sessionId: `session-${k}`,
    taskId: `task-${k}`,
    turnId: `turn-${k}`,
    workspaceId: `ws-${String(i % WORKSPACES).padStart(4, '0')}`,
  };
}

/** The session agent token (`parley_sat_…`) of bundle i's session; the seed stores its sha256. */
export function agentTokenOf(i: number): string {
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  return `parley_sat_${(md5(`sat-a-${i}`) + md5(`sat-b-${i}`)).slice(0, 43)}`;
}

/** The pending_id of bundle i: a deterministic UUID, the same as the seed's md5('pending-' || i)::uuid. */
/**
 * The SQL expression of seededIds(i)[key] for an index given as SQL (`:i` in a pgbench script,
 * a column elsewhere) — what a statement replayed outside Node substitutes for bundle 0's ids.
 */
export function seededIdSql(key: 'pendingId' | 'sessionId' | 'taskId' | 'turnId', index: string): string {
  const padded = `lpad((${index})::text, 7, '0')`;
  switch (key) {
    case 'pendingId':
      return `md5('pending-' || (${index})::text)::uuid::text`;
    case 'sessionId':
      return `('session-' || ${padded})`;
    case 'taskId':
      return `('task-' || ${padded})`;
    case 'turnId':
      return `('turn-' || ${padded})`;
  }
}

export function pendingIdOf(i: number): string {
  const hex = createHash('md5').update(`pending-${i}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const AGENT_TOKEN_SQL = `'parley_sat_' || substr(md5('sat-a-' || i) || md5('sat-b-' || i), 1, 43)`;

/**
 * Seeds `bundles` active bundles with set-based SQL (a handful of INSERT … SELECT generate_series):
 * 1,000 workspaces (10 owned by the scoped user, the rest by 990 other owners), one task per bundle
 * (task i in workspace i % 1000), one RUNNING session and one turn per task, and per bundle one
 * `clarification_request` row (odd i) or two (even i) on that turn, with the metadata the service
 * writes. created_at increases with i (bundle i at base + i × 500 ms, its second row 1 ms later),
 * all in the past. Then VACUUM ANALYZE, so the planner has statistics and the visibility map is set
 * (what autovacuum leaves behind on a real system).
 */
export async function seed(db: pg.Pool, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO workspaces (id, name, owner_id, created_at)
       SELECT 'ws-' || lpad(w::text, 4, '0'), 'Workspace ' || w,
              COALESCE($3, CASE WHEN w % ${SCOPED_EVERY} = 0 AND $1::text IS NOT NULL THEN $1
                                WHEN w % 2 = 1 AND $2::text IS NOT NULL THEN $2
                                ELSE 'other-owner-' || lpad(w::text, 4, '0') END),
              now() - interval '30 days'
         FROM generate_series(0, ${WORKSPACES - 1}) w`,
      [options.scopedUserId ?? null, options.halfUserId ?? null, options.ownerId ?? null],
    );
    if (options.memberUserId !== undefined)
      await client.query(
        `INSERT INTO workspace_members (workspace_id, user_id)
         SELECT 'ws-' || lpad(w::text, 4, '0'), $1 FROM generate_series(0, ${WORKSPACES - 1}, ${SCOPED_EVERY}) w`,
        [options.memberUserId],
      );
    await client.query(
      `CREATE TEMP TABLE bench_seed ON COMMIT DROP AS
       SELECT i, lpad(i::text, 7, '0') AS k,
              now() - interval '3 days' + i * interval '500 milliseconds' AS at
         FROM generate_series(0, $1::int - 1) i`,
      [options.bundles],
    );
    await client.query(
      `INSERT INTO tasks (id, workspace_id, title, state, created_at, updated_at)
       SELECT 'task-' || k, 'ws-' || lpad((i % ${WORKSPACES})::text, 4, '0'), 'Task ' || i, 'IN_PROGRESS', at, at
         FROM bench_seed`,
    );
    await client.query(
      `INSERT INTO task_sessions (id, task_id, state, agent_token_sha256, created_at, updated_at)
       SELECT 'session-' || k, 'task-' || k, $1, encode(sha256(convert_to(${AGENT_TOKEN_SQL}, 'UTF8')), 'hex'), at, at
         FROM bench_seed`,
      [options.sessionState ?? 'RUNNING'],
    );
    await client.query(
      `INSERT INTO task_session_turns (id, task_session_id, task_id, started_at, metadata, created_at)
       SELECT 'turn-' || k, 'session-' || k, 'task-' || k, at, '{}'::jsonb, at FROM bench_seed`,
    );
    const inserted = await client.query(
      `INSERT INTO task_session_messages
         (id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata, created_at, updated_at)
       SELECT 'msg-' || k || '-' || q, 'session-' || k, 'task-' || k, 'turn-' || k, 'agent', 'clarification_request',
              'Prompt ' || (q + 1) || ' of bundle ' || i || '?', true,
              jsonb_build_object(
                'pending_id', md5('pending-' || i)::uuid::text,
                'question_id', 'q' || (q + 1),
                'question', jsonb_build_object(
                  'id', 'q' || (q + 1),
                  'title', 'Question ' || (q + 1),
                  'prompt', 'Prompt ' || (q + 1) || ' of bundle ' || i || '?',
                  'options', jsonb_build_array(
                    jsonb_build_object('option_id', 'q' || (q + 1) || '_yes', 'label', 'Yes', 'description', 'Go ahead'),
                    jsonb_build_object('option_id', 'q' || (q + 1) || '_no', 'label', 'No', 'description', 'Stop here'),
                    jsonb_build_object('option_id', 'q' || (q + 1) || '_later', 'label', 'Later', 'description', 'Ask again tomorrow'))),
                'question_index', q,
                'question_total', CASE WHEN i % 2 = 0 AND $1 THEN 2 ELSE 1 END,
                'context', 'Context of bundle ' || i || ': the agent needs a decision before it can continue.',
                'status', 'pending'),
              at + interval '10 milliseconds' + q * interval '1 millisecond',
              at + interval '10 milliseconds' + q * interval '1 millisecond'
         FROM bench_seed CROSS JOIN LATERAL generate_series(0, CASE WHEN i % 2 = 0 AND $1 THEN 1 ELSE 0 END) q`,
      [(options.questions ?? '1or2') === '1or2'],
    );
    // The bundle index, as the writers maintain it (one row per active bundle); checked against the
    // activeness rule on a sample below.
    await client.query(
      `INSERT INTO clarification_bundles (pending_id, session_id, task_id, visibility_key, created_at, active)
       SELECT md5('pending-' || i)::uuid::text, 'session-' || k, 'task-' || k,
              'ws-' || lpad((i % ${WORKSPACES})::text, 4, '0'), at + interval '10 milliseconds', $1 NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')
         FROM bench_seed`,
      [options.sessionState ?? 'RUNNING'],
    );
    await client.query('COMMIT');
    for (const table of ['workspaces', 'tasks', 'task_sessions', 'task_session_turns', 'task_session_messages', 'clarification_bundles']) {
      await client.query(`VACUUM (ANALYZE) ${table}`);
    }
    await checkIndexSample(client, options.bundles);
    const scoped = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM tasks t JOIN workspaces w ON w.id = t.workspace_id WHERE w.owner_id = $1`,
      [options.scopedUserId ?? ''],
    );
    return {
      bundles: options.bundles,
      rows: inserted.rowCount ?? 0,
      scopedBundles: Number(scoped.rows[0]?.n ?? 0),
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The seeded index rows equal what the activeness rule derives (upsertBundleIndexSql run on a sample
 * of 200 bundles writes nothing when they are in step), so the list walks what the app would have.
 */
async function checkIndexSample(client: pg.PoolClient, bundles: number): Promise<void> {
  const sample = `SELECT md5('pending-' || (floor(random() * ${bundles}))::int)::uuid::text FROM generate_series(1, 200)`;
  await client.query('BEGIN');
  try {
    const changed = await client.query(upsertBundleIndexSql(sample));
    if ((changed.rowCount ?? 0) !== 0) throw new Error(`seeded bundle index differs from the activeness rule on ${changed.rowCount} of 200 sampled bundles`);
  } finally {
    await client.query('ROLLBACK');
  }
}
