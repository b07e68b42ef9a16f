import type pg from 'pg';
import { ParleyMetrics } from '#observability';
import type { TestApp } from './app.js';

const METRIC = 'parley_lifecycle_events_total';

/** Each `event` of `parley_lifecycle_events_total` as one app counts it now (what it committed itself). */
export async function lifecycleCounts(t: TestApp): Promise<Record<string, number>> {
  const metric = t.app.get(ParleyMetrics).registry.getSingleMetric(METRIC);
  if (!metric) throw new Error(`${METRIC} is not registered`);
  const { values } = await metric.get();
  return Object.fromEntries(values.map((sample) => [String(sample.labels.event), sample.value]));
}

/** How far each event moved since `before` (only those that moved). */
export async function lifecycleMoved(t: TestApp, before: Record<string, number>): Promise<Record<string, number>> {
  const now = await lifecycleCounts(t);
  return Object.fromEntries(Object.entries(now).flatMap(([event, count]) => (count === (before[event] ?? 0) ? [] : [[event, count - (before[event] ?? 0)]])));
}

export interface RecordedQuestionEvent {
  type: string;
  session_id: string;
  task_id: string;
  payload: Record<string, unknown>;
}

/** The question events recorded for a bundle, in feed order. */
export async function questionEventsOf(db: pg.Pool, pendingId: string): Promise<RecordedQuestionEvent[]> {
  const { rows } = await db.query<RecordedQuestionEvent>(
    `SELECT type, session_id, task_id, payload FROM question_events WHERE pending_id = $1 ORDER BY id`,
    [pendingId],
  );
  return rows;
}
