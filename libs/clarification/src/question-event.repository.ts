import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, queryRow, queryRows } from '../../persistence/src/index.js';

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

export interface NewQuestionEvent {
  type: string;
  pendingId: string;
  sessionId: string;
  taskId: string;
  payload: Record<string, unknown>;
}

/** Serializes event appends so ids become visible in commit order (a reader never skips one). */
const APPEND_LOCK = 0x51_45_56_54;

@Injectable()
export class QuestionEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  append(event: NewQuestionEvent): Promise<QuestionEventRow> {
    return inTransaction(this.dataSource, async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock($1)`, [APPEND_LOCK]);
      return (await queryRow<QuestionEventRow>(
        manager,
        `INSERT INTO question_events (type, pending_id, session_id, task_id, workspace_id, payload)
         VALUES ($1, $2, $3, $4, COALESCE((SELECT workspace_id FROM tasks WHERE id = $4), ''), $5::jsonb)
         RETURNING id::text, type, pending_id, session_id, task_id, workspace_id, payload, created_at`,
        [event.type, event.pendingId, event.sessionId, event.taskId, JSON.stringify(event.payload)],
      )) as QuestionEventRow;
    });
  }

  /** Events after `afterId`, oldest first, optionally of one workspace. */
  listAfter(afterId: string, workspaceId: string | undefined, limit: number): Promise<QuestionEventRow[]> {
    return queryRows<QuestionEventRow>(
      this.dataSource,
      `SELECT id::text, type, pending_id, session_id, task_id, workspace_id, payload, created_at
         FROM question_events
        WHERE id > $1::bigint AND ($2::text IS NULL OR workspace_id = $2)
        ORDER BY id LIMIT $3`,
      [afterId, workspaceId ?? null, limit],
    );
  }

  async latestId(): Promise<string> {
    const row = await queryRow<{ id: string }>(this.dataSource, `SELECT COALESCE(MAX(id), 0)::text AS id FROM question_events`);
    return row?.id ?? '0';
  }

  /** The highest id retention has deleted: a cursor below it has missed events for good. */
  async prunedThrough(): Promise<string> {
    const row = await queryRow<{ pruned_through: string }>(
      this.dataSource,
      `SELECT pruned_through::text AS pruned_through FROM question_event_retention WHERE id = 1`,
    );
    return row?.pruned_through ?? '0';
  }

  /** Deletes events older than the cutoff and raises the watermark to the last id deleted. */
  prune(olderThan: Date): Promise<number> {
    return inTransaction(this.dataSource, async (manager) => {
      const deleted = await queryRows<{ id: string }>(
        manager,
        `DELETE FROM question_events WHERE created_at < $1 RETURNING id::text`,
        [olderThan],
      );
      if (deleted.length > 0) {
        await manager.query(
          `UPDATE question_event_retention SET pruned_through = GREATEST(pruned_through, $1::bigint) WHERE id = 1`,
          [deleted.reduce((max, row) => (BigInt(row.id) > BigInt(max) ? row.id : max), '0')],
        );
      }
      return deleted.length;
    });
  }
}
