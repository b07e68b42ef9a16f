import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, namedStatement, type NamedStatement, type ReadExecutor } from '#persistence';
import { POSITION_SPAN } from '../bundle/question-event.sql.js';

export interface QuestionEventRow {
  id: string;
  type: string;
  pending_id: string;
  session_id: string;
  task_id: string;
  workspace_id: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

export interface SettledEvents {
  events: QuestionEventRow[];
  /** Events are committed beyond the settled horizon: read again shortly. */
  unsettled: boolean;
}

/** The settled horizon: see POSITION_SPAN (bundle/question-event.sql.ts) for what an event's position is. */
const HORIZON = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${POSITION_SPAN}`;
/** `id` as text (positions exceed JS numbers): order by `question_events.id`, never the text output column `id`. */
const EVENT_COLUMNS = `id::text AS id, type, pending_id, session_id, task_id, workspace_id, payload, created_at`;

const QUESTION_EVENT_LIST_SETTLED_AFTER = namedStatement(
  'question_event_list_settled_after',
  ['after_id', 'workspace_id', 'limit'],
  `WITH horizon AS (SELECT ${HORIZON} AS position)
       SELECT e.*, e.id IS NOT NULL AS present,
              EXISTS (SELECT 1 FROM question_events later, horizon WHERE later.id >= horizon.position) AS unsettled
         FROM horizon
         LEFT JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM question_events
            WHERE id > :after_id::bigint AND id < horizon.position AND (:workspace_id::text IS NULL OR workspace_id = :workspace_id)
            ORDER BY question_events.id LIMIT :limit) e ON true`,
);

const QUESTION_EVENT_SETTLED_HEAD = namedStatement(
  'question_event_settled_head',
  [],
  `SELECT COALESCE((SELECT MAX(id) FROM question_events WHERE id < ${HORIZON}), 0)::text AS head`,
);

const QUESTION_EVENT_PRUNED_THROUGH = namedStatement(
  'question_event_pruned_through',
  [],
  `SELECT pruned_through::text AS pruned_through FROM question_event_retention WHERE id = 1`,
);

const QUESTION_EVENT_PRUNE = namedStatement(
  'question_event_prune',
  ['older_than'],
  `WITH gone AS (DELETE FROM question_events WHERE created_at < :older_than AND id < ${HORIZON} RETURNING id)
         SELECT MAX(id)::text AS last, COUNT(*)::text AS count FROM gone`,
);

const QUESTION_EVENT_PRUNE_MARK = namedStatement(
  'question_event_prune_mark',
  ['last'],
  `UPDATE question_event_retention SET pruned_through = GREATEST(pruned_through, :last::bigint) WHERE id = 1`,
);

/** The statements QuestionEventRepository runs, for `npm run sql:write`. */
export const questionEventStatements: readonly NamedStatement[] = [
  QUESTION_EVENT_LIST_SETTLED_AFTER,
  QUESTION_EVENT_SETTLED_HEAD,
  QUESTION_EVENT_PRUNED_THROUGH,
  QUESTION_EVENT_PRUNE,
  QUESTION_EVENT_PRUNE_MARK,
];

@Injectable()
export class QuestionEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Settled events after `afterId`, in position order, optionally of one workspace; `on` a connection of the process's own, or the pool. */
  async listSettledAfter(afterId: string, workspaceId: string | undefined, limit: number, on?: ReadExecutor): Promise<SettledEvents> {
    const rows = await QUESTION_EVENT_LIST_SETTLED_AFTER.rows<QuestionEventRow & { unsettled: boolean; present: boolean }>(on ?? this.dataSource, {
      after_id: afterId,
      workspace_id: workspaceId ?? null,
      limit,
    });
    const unsettled = rows[0]?.unsettled ?? false;
    const events = rows
      .filter((row) => row.present)
      .map(({ unsettled: _unsettled, present: _present, ...event }) => event);
    return { events, unsettled };
  }

  /** The position every settled event is at or below (where a subscriber without a cursor starts). */
  async settledHead(): Promise<string> {
    const row = await QUESTION_EVENT_SETTLED_HEAD.row<{ head: string }>(this.dataSource, {});
    return row?.head ?? '0';
  }

  /** The highest position retention has deleted: a cursor below it has missed events for good. */
  async prunedThrough(): Promise<string> {
    const row = await QUESTION_EVENT_PRUNED_THROUGH.row<{ pruned_through: string }>(this.dataSource, {});
    return row?.pruned_through ?? '0';
  }

  /** Deletes settled events older than the cutoff and raises the watermark to the last one deleted. */
  prune(olderThan: Date): Promise<number> {
    return inTransaction(this.dataSource, async (manager) => {
      const deleted = await QUESTION_EVENT_PRUNE.rows<{ last: string | null; count: string }>(manager, { older_than: olderThan });
      const last = deleted[0]?.last;
      if (last) {
        await QUESTION_EVENT_PRUNE_MARK.rows(manager, { last });
      }
      return Number(deleted[0]?.count ?? 0);
    });
  }
}
