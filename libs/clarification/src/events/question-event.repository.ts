import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, queryRow, queryRows, type ReadExecutor } from '#persistence';
import { outboxInsertSql } from '#webhooks';

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

/**
 * An event's position is `txid · 2^16 + n`: the id of the transaction that wrote it (pg_current_xact_id)
 * and its ordinal within that transaction. Every transaction whose id is below the snapshot's xmin has
 * finished, so the events below `xmin · 2^16` are settled — none can appear there any more — and a
 * reader that only ever reads below that horizon, in position order, never skips an event and never
 * reads one twice, with no lock on the write path. (2^16 events per transaction; xid8 below 2^47.)
 */
const POSITION_SPAN = 65536;
const TXID = `pg_current_xact_id()::text::bigint`;
const HORIZON = `pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${POSITION_SPAN}`;
/** `id` as text (positions exceed JS numbers): order by `question_events.id`, never the text output column `id`. */
const EVENT_COLUMNS = `id::text AS id, type, pending_id, session_id, task_id, workspace_id, payload, created_at`;

/**
 * Two data-modifying CTEs, `events` and `events_outbox`, for the WITH clause of a statement in the
 * transaction of the change the events report: `events` inserts the events `sourceSql` yields —
 * columns (type, pending_id, session_id, task_id, payload) — positioned after any event this
 * transaction already wrote, and returns them; `events_outbox` queues their outbound webhook
 * deliveries, so every event is offered to the subscriptions of its workspace by the very
 * statement that records it. PostgreSQL runs both whether or not the statement reads them. At most
 * once per statement (the names are fixed); on its own: `WITH <these CTEs> SELECT … FROM events`.
 */
export function insertEventsCtes(sourceSql: string): string {
  return `events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (${sourceSql}) raw) source,
           (SELECT COALESCE(MAX(mine.id), ${TXID} * ${POSITION_SPAN} - 1) AS base FROM question_events mine
             WHERE mine.id >= ${TXID} * ${POSITION_SPAN} AND mine.id < (${TXID} + 1) * ${POSITION_SPAN}) position
    RETURNING id, type, pending_id, session_id, task_id, workspace_id, payload, created_at),
  events_outbox AS (${outboxInsertSql('events')})`;
}

@Injectable()
export class QuestionEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Settled events after `afterId`, in position order, optionally of one workspace; `on` a connection of the process's own, or the pool. */
  async listSettledAfter(afterId: string, workspaceId: string | undefined, limit: number, on?: ReadExecutor): Promise<SettledEvents> {
    const rows = await queryRows<QuestionEventRow & { unsettled: boolean; present: boolean }>(
      on ?? this.dataSource,
      `WITH horizon AS (SELECT ${HORIZON} AS position)
       SELECT e.*, e.id IS NOT NULL AS present,
              EXISTS (SELECT 1 FROM question_events later, horizon WHERE later.id >= horizon.position) AS unsettled
         FROM horizon
         LEFT JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM question_events
            WHERE id > $1::bigint AND id < horizon.position AND ($2::text IS NULL OR workspace_id = $2)
            ORDER BY question_events.id LIMIT $3) e ON true`,
      [afterId, workspaceId ?? null, limit],
    );
    const unsettled = rows[0]?.unsettled ?? false;
    const events = rows
      .filter((row) => row.present)
      .map(({ unsettled: _unsettled, present: _present, ...event }) => event);
    return { events, unsettled };
  }

  /** The position every settled event is at or below (where a subscriber without a cursor starts). */
  async settledHead(): Promise<string> {
    const row = await queryRow<{ head: string }>(
      this.dataSource,
      `SELECT COALESCE((SELECT MAX(id) FROM question_events WHERE id < ${HORIZON}), 0)::text AS head`,
    );
    return row?.head ?? '0';
  }

  /** The highest position retention has deleted: a cursor below it has missed events for good. */
  async prunedThrough(): Promise<string> {
    const row = await queryRow<{ pruned_through: string }>(
      this.dataSource,
      `SELECT pruned_through::text AS pruned_through FROM question_event_retention WHERE id = 1`,
    );
    return row?.pruned_through ?? '0';
  }

  /** Deletes settled events older than the cutoff and raises the watermark to the last one deleted. */
  prune(olderThan: Date): Promise<number> {
    return inTransaction(this.dataSource, async (manager) => {
      const deleted = await queryRows<{ last: string | null; count: string }>(
        manager,
        `WITH gone AS (DELETE FROM question_events WHERE created_at < $1 AND id < ${HORIZON} RETURNING id)
         SELECT MAX(id)::text AS last, COUNT(*)::text AS count FROM gone`,
        [olderThan],
      );
      const last = deleted[0]?.last;
      if (last) {
        await manager.query(`UPDATE question_event_retention SET pruned_through = GREATEST(pruned_through, $1::bigint) WHERE id = 1`, [last]);
      }
      return Number(deleted[0]?.count ?? 0);
    });
  }
}
