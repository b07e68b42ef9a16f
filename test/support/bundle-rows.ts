import type { BundleRow, BundleRowMetadata } from '../../libs/clarification/src/bundle/clarification.types.js';

/** A bundle's rows for the unit specs of the pure rules: one row per entry, in D2 order (q1, q2, …). */
export function bundleRows(pendingId: string, ...metadata: Array<Partial<BundleRowMetadata>>): BundleRow[] {
  return metadata.map((entry, index) => ({
    id: `m${index + 1}`,
    task_session_id: 'session',
    task_id: 'task',
    session_task_id: 'task',
    turn_id: 'turn',
    content: '',
    metadata: { pending_id: pendingId, question_id: `q${index + 1}`, question_index: index, ...entry },
    created_at: new Date('2026-01-01T00:00:00.000Z'),
  }));
}
