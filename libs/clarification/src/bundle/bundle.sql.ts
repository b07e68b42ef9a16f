import { BUNDLE_CHANNEL, type BundleSignalKind } from './bundle-signal.channel.js';

/** D2 order: question_index, then created_at, then id (a total order even for corrupt metadata). */
export const D2_ORDER = `COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id`;

/** The columns of a bundle row (`m`: the message, `s`: its session). */
export const BUNDLE_COLUMNS = `m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content,
  m.metadata, m.created_at, m.updated_at`;

/** SQL that NOTIFYs `kind` for each `pending_id` the source yields (delivered when the transaction commits). */
export function notifyBundlesSql(sourceSql: string, kind: BundleSignalKind): string {
  return `SELECT pg_notify('${BUNDLE_CHANNEL}', json_build_object('pending_id', source.pending_id, 'kind', '${kind}')::text)
    FROM (${sourceSql}) source`;
}
