import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { type CallerReach, taskAccessibleBy } from '#authorization';
import { namedStatement, type NamedStatement, type SqlExecutor } from '#persistence';
import {
  activeRow,
  bundleIsActive,
  bundleTaskIdSql,
  CLARIFICATION_REQUEST,
  currentPendingRow,
  currentTurnId,
  sessionHasActiveBundle,
  SessionState,
  upsertBundleIndexSql,
} from '#tasks';
import { insertEventsCtes } from './question-event.sql.js';
import { BUNDLE_COLUMNS, D2_ORDER } from './bundle.sql.js';
import type { AuthorizedBundle, NewBundle } from './bundle.types.js';
import type { BundleRow } from './clarification.types.js';

/**
 * Spec M5 + A1–A5 in one statement: the bundle's rows in D2 order with its session, and whether the
 * caller may reach its task (`reach` is that condition over the task `t` and the bundle row `m`).
 */
function authorizedBundle<const P extends string>(variant: string, parameters: readonly P[], reach: string) {
  return namedStatement(
    'authorized_bundle',
    parameters,
    `WITH bundle AS (
       SELECT ${BUNDLE_COLUMNS}, s.state AS session_state, s.resume_url AS session_resume_url,
              row_number() OVER (ORDER BY ${D2_ORDER}) AS d2
         FROM task_session_messages m LEFT JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = :pending_id AND m.type = '${CLARIFICATION_REQUEST}'),
     access AS (
       SELECT (SELECT ${reach} FROM bundle m
                 LEFT JOIN tasks t ON t.id = ${bundleTaskIdSql('m.task_id', 'm.session_task_id')}
                ORDER BY m.d2 LIMIT 1) AS allowed),
     state AS (SELECT CASE WHEN (SELECT allowed FROM access) THEN ${bundleIsActive(':pending_id')} END AS active)
     SELECT m.*, access.allowed, state.active FROM bundle m, access, state ORDER BY m.d2`,
    variant,
  );
}

/** The statement for each kind of caller: an unscoped one, a person, a session agent (its own session only). */
export const AUTHORIZED_BUNDLE = {
  all: authorizedBundle('all', ['pending_id'], 'TRUE'),
  user: authorizedBundle('user', ['pending_id', 'user_id'], taskAccessibleBy('t', ':user_id')),
  session: authorizedBundle('session', ['pending_id', 'session_id'], 'm.task_session_id = :session_id'),
};

type AuthorizedBundleRow = BundleRow & {
  session_state: string | null;
  session_resume_url: string | null;
  allowed: boolean;
  active: boolean | null;
  d2: string;
};

function authorizedBundleRows(dataSource: DataSource, pendingId: string, reach: CallerReach): Promise<AuthorizedBundleRow[]> {
  switch (reach.kind) {
    case 'all':
      return AUTHORIZED_BUNDLE.all.run<AuthorizedBundleRow>(dataSource, { pending_id: pendingId });
    case 'user':
      return AUTHORIZED_BUNDLE.user.run<AuthorizedBundleRow>(dataSource, { pending_id: pendingId, user_id: reach.userId });
    case 'session':
      return AUTHORIZED_BUNDLE.session.run<AuthorizedBundleRow>(dataSource, {
        pending_id: pendingId,
        session_id: reach.sessionId,
      });
  }
}

/** The bundle rows of one session, grouped per pending id (used by ask's "same questions" check). */
function groupByPendingId(rows: BundleRow[]): BundleRow[][] {
  const bundles = new Map<string, BundleRow[]>();
  for (const row of rows) {
    const pendingId = row.metadata.pending_id ?? '';
    bundles.set(pendingId, [...(bundles.get(pendingId) ?? []), row]);
  }
  return [...bundles.values()];
}

const BUNDLE_FIND_BUNDLE = namedStatement(
  'bundle_find_bundle',
  ['pending_id'],
  `SELECT ${BUNDLE_COLUMNS} FROM task_session_messages m
         LEFT JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = :pending_id AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY ${D2_ORDER}`,
);

const BUNDLE_FIND_BUNDLE_STATE = namedStatement(
  'bundle_find_bundle_state',
  ['pending_id'],
  `SELECT ${BUNDLE_COLUMNS}, ${bundleIsActive(':pending_id')} AS bundle_active FROM task_session_messages m
         LEFT JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = :pending_id AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY ${D2_ORDER}`,
);

const BUNDLE_FIND_ACTIVE_BUNDLES_OF_SESSION = namedStatement(
  'bundle_find_active_bundles_of_session',
  ['session_id'],
  `SELECT ${BUNDLE_COLUMNS} FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.task_session_id = :session_id AND ${activeRow('m')}
        ORDER BY m.metadata->>'pending_id', ${D2_ORDER}`,
);

const BUNDLE_FIND_LATEST_BUNDLE_OF_SESSION = namedStatement(
  'bundle_find_latest_bundle_of_session',
  ['session_id'],
  `SELECT ${BUNDLE_COLUMNS} FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.type = '${CLARIFICATION_REQUEST}' AND m.metadata->>'pending_id' = (
                SELECT latest.metadata->>'pending_id' FROM task_session_messages latest
                 WHERE latest.task_session_id = :session_id AND latest.type = '${CLARIFICATION_REQUEST}'
                 ORDER BY latest.created_at DESC, latest.id DESC LIMIT 1)
        ORDER BY ${D2_ORDER}`,
);

const BUNDLE_RESUME_OF_TURN = namedStatement(
  'bundle_resume_of_turn',
  ['turn_id'],
  `SELECT metadata->>'resume_of' AS resume_of FROM task_session_turns WHERE id = :turn_id`,
);

const BUNDLE_IS_BUNDLE_ACTIVE = namedStatement(
  'bundle_is_bundle_active',
  ['pending_id'],
  `SELECT ${bundleIsActive(':pending_id')} AS active`,
);

const BUNDLE_SESSION_HAS_ACTIVE_BUNDLE = namedStatement(
  'bundle_session_has_active_bundle',
  ['session_id'],
  `SELECT ${sessionHasActiveBundle(':session_id')} AS active`,
);

const BUNDLE_CURRENT_TURN_ID = namedStatement(
  'bundle_current_turn_id',
  ['session_id'],
  `SELECT ${currentTurnId(':session_id')} AS id`,
);

const BUNDLE_INSERT = namedStatement(
  'bundle_insert',
  ['pending_id', 'session_id', 'task_id', 'turn_id', 'rows', 'event_payload', 'expires_in_seconds', 'escalation'],
  `WITH deadline AS (
         SELECT d.at, to_char(d.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS iso
           FROM (SELECT date_trunc('milliseconds', statement_timestamp() + make_interval(secs => :expires_in_seconds::int)) AS at) d
          WHERE :expires_in_seconds::int IS NOT NULL
       ), inserted AS (
         INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata, created_at)
         SELECT q.id, :session_id, :task_id, :turn_id, 'agent', '${CLARIFICATION_REQUEST}', q.content, true,
                q.metadata || jsonb_strip_nulls(jsonb_build_object('expires_at', (SELECT iso FROM deadline))),
                clock_timestamp() + make_interval(secs => q.n / 1000000.0)
           FROM jsonb_to_recordset(:rows::jsonb) AS q(id text, content text, metadata jsonb, n int)
         RETURNING id, task_session_id, task_id, turn_id, content, metadata, created_at, updated_at
       ), waiting AS (
         UPDATE task_sessions SET state = '${SessionState.WaitingForInput}', updated_at = clock_timestamp() WHERE id = :session_id RETURNING id
       ), indexed AS (
         INSERT INTO clarification_bundles (pending_id, session_id, task_id, visibility_key, created_at, active)
         SELECT :pending_id, :session_id, :task_id, COALESCE((SELECT CASE WHEN t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id)
                                        THEN '' ELSE t.workspace_id END FROM tasks t WHERE t.id = :task_id), ''),
                (SELECT MIN(created_at) FROM inserted), true
         RETURNING pending_id
       ), scheduled AS (
         INSERT INTO clarification_deadlines (pending_id, session_id, expires_at, due_at)
         SELECT :pending_id, :session_id, d.at, d.at FROM deadline d, indexed
         RETURNING pending_id
       ), escalations AS (
         INSERT INTO clarification_escalations (pending_id, step, session_id, due_at, action)
         SELECT :pending_id, e.step, :session_id, statement_timestamp() + make_interval(secs => e.after_seconds), e.action
           FROM jsonb_to_recordset(:escalation::jsonb) AS e(step int, after_seconds int, action jsonb), indexed
         RETURNING pending_id
       ), ${insertEventsCtes(`SELECT 'ASKED'::text AS type, :pending_id::text AS pending_id, :session_id::text AS session_id, :task_id::text AS task_id,
           :event_payload::jsonb || jsonb_strip_nulls(jsonb_build_object('expires_at', (SELECT iso FROM deadline))) AS payload`)}
       SELECT m.id, m.task_session_id, m.task_id, :task_id::text AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at, m.updated_at
         FROM inserted m ORDER BY ${D2_ORDER}`,
);

const BUNDLE_REFRESH_SESSION_INDEX = namedStatement(
  'bundle_refresh_session_index',
  ['session_id', 'pending_ids'],
  upsertBundleIndexSql(`SELECT pending_id FROM clarification_bundles WHERE session_id = :session_id AND active
        UNION SELECT m.metadata->>'pending_id' FROM task_session_messages m WHERE m.task_session_id = :session_id AND ${currentPendingRow('m')}
        UNION SELECT unnest(:pending_ids::text[])`),
);

/** The statements BundleRepository runs, for `npm run sql:write`. */
export const bundleStatements: readonly NamedStatement[] = [
  AUTHORIZED_BUNDLE.all,
  AUTHORIZED_BUNDLE.user,
  AUTHORIZED_BUNDLE.session,
  BUNDLE_FIND_BUNDLE,
  BUNDLE_FIND_BUNDLE_STATE,
  BUNDLE_FIND_ACTIVE_BUNDLES_OF_SESSION,
  BUNDLE_FIND_LATEST_BUNDLE_OF_SESSION,
  BUNDLE_RESUME_OF_TURN,
  BUNDLE_IS_BUNDLE_ACTIVE,
  BUNDLE_SESSION_HAS_ACTIVE_BUNDLE,
  BUNDLE_CURRENT_TURN_ID,
  BUNDLE_INSERT,
  BUNDLE_REFRESH_SESSION_INDEX,
];

@Injectable()
export class BundleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every row of the bundle in D2 order (with the session's task_id for M5). */
  findBundle(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return BUNDLE_FIND_BUNDLE.rows<BundleRow>(executor, { pending_id: pendingId });
  }

  /** Every row of the bundle in D2 order and whether the activeness rule holds it active, read in one statement. */
  async findBundleState(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<{ rows: BundleRow[]; active: boolean }> {
    const rows = await BUNDLE_FIND_BUNDLE_STATE.rows<BundleRow & { bundle_active: boolean }>(executor, { pending_id: pendingId });
    return { rows: rows.map(({ bundle_active: _active, ...row }) => row), active: rows[0]?.bundle_active === true };
  }

  /**
   * The bundle's rows in D2 order with its session, or nothing when the bundle is missing or the
   * caller may not reach its task — both cost the same single query, so a foreign id and a fabricated
   * one cannot be told apart by status, body or time.
   */
  async findAuthorizedBundle(pendingId: string, reach: CallerReach): Promise<AuthorizedBundle> {
    const rows = await authorizedBundleRows(this.dataSource, pendingId, reach);
    if (rows.length === 0 || rows[0]?.allowed !== true) return { rows: [], session: undefined, active: false };
    const first = rows[0];
    const session =
      first.session_state === null
        ? undefined
        : { state: first.session_state, resume_url: first.session_resume_url ?? '', task_id: first.session_task_id ?? '' };
    return {
      rows: rows.map(({ session_state: _state, session_resume_url: _url, allowed: _allowed, active: _active, d2: _d2, ...row }) => row),
      session,
      active: first.active === true,
    };
  }

  /** The session's active bundles (current turn, pending, session live), each in D2 order. */
  async findActiveBundlesOfSession(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[][]> {
    const rows = await BUNDLE_FIND_ACTIVE_BUNDLES_OF_SESSION.rows<BundleRow>(executor, { session_id: sessionId });
    return groupByPendingId(rows);
  }

  /** The rows of the session's most recent bundle (D2 order); none when it never asked. */
  async findLatestBundleOfSession(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return BUNDLE_FIND_LATEST_BUNDLE_OF_SESSION.rows<BundleRow>(executor, { session_id: sessionId });
  }

  /** The bundle a turn was reserved to resume the agent with (its `resume_of`), if any. */
  async resumeOfTurn(turnId: string, executor: SqlExecutor = this.dataSource): Promise<string | undefined> {
    const row = await BUNDLE_RESUME_OF_TURN.row<{ resume_of: string | null }>(executor, { turn_id: turnId });
    return row?.resume_of ?? undefined;
  }

  async isBundleActive(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<boolean> {
    const row = await BUNDLE_IS_BUNDLE_ACTIVE.row<{ active: boolean }>(executor, { pending_id: pendingId });
    return row?.active === true;
  }

  async sessionHasActiveBundle(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<boolean> {
    const row = await BUNDLE_SESSION_HAS_ACTIVE_BUNDLE.row<{ active: boolean }>(executor, { session_id: sessionId });
    return row?.active === true;
  }

  async currentTurnId(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<string | undefined> {
    const row = await BUNDLE_CURRENT_TURN_ID.row<{ id: string | null }>(executor, { session_id: sessionId });
    return row?.id ?? undefined;
  }

  /**
   * Asking: the bundle's rows (all or nothing), its index row, its ASKED event, — with a deadline —
   * its `clarification_deadlines` row, — with an escalation ladder — its `clarification_escalations`
   * rows, and the session WAITING_FOR_INPUT, in one statement of the
   * asking transaction; returns the rows as stored, in D2 order. One statement because it is the
   * transaction's first write: from it on, the transaction holds an id that every event written after
   * it waits behind (the feed's settled horizon, QuestionEventRepository), so nothing else runs between
   * it and the commit.
   */
  async insertBundle(bundle: NewBundle, manager: EntityManager): Promise<BundleRow[]> {
    return BUNDLE_INSERT.rows<BundleRow>(manager, {
      pending_id: bundle.pendingId,
      session_id: bundle.sessionId,
      task_id: bundle.taskId,
      turn_id: bundle.turnId,
      rows: JSON.stringify(bundle.rows.map((row, n) => ({ id: row.id, content: row.content, metadata: row.metadata, n }))),
      event_payload: JSON.stringify(bundle.eventPayload),
      expires_in_seconds: bundle.expiresInSeconds ?? null,
      escalation: JSON.stringify(bundle.escalation ?? []),
    });
  }

  /**
   * Re-derives the index rows of a session's bundles from the activeness rule: those the index holds
   * active, those with pending rows on the current turn, and `pendingIds`. Returns the bundles that
   * became active (after a rollback restored them).
   */
  async refreshSessionIndex(sessionId: string, pendingIds: string[], manager: EntityManager): Promise<string[]> {
    const rows = await BUNDLE_REFRESH_SESSION_INDEX.rows<{ pending_id: string; active: boolean }>(manager, {
      session_id: sessionId,
      pending_ids: pendingIds,
    });
    return rows.filter((row) => row.active).map((row) => row.pending_id);
  }
}
