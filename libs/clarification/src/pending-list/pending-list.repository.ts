import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { visibleWorkspaceIds, type WorkspaceVisibility } from '#authorization';
import { namedStatement, type NamedStatement } from '#persistence';
import { CLARIFICATION_REQUEST } from '#tasks';
import { D2_ORDER } from '../bundle/bundle.sql.js';
import type { BundleRow } from '../bundle/clarification.types.js';
import { PENDING_LIST } from './pending-list.sql.js';

export interface PendingListQuery {
  visibility: WorkspaceVisibility;
  workspaceId: string | undefined;
  createdSince: Date | undefined;
  after: { at: string; pendingId: string } | undefined;
  limit: number;
}

export interface PendingBundleHead {
  pending_id: string;
  task_id: string;
  session_id: string;
  /** The keyset position: the bundle's D1 created_at, at full precision. */
  scan_key: string;
}

/** Up to this many visibility keys, the page merges one index walk per key; beyond, one walk filters. */
const MAX_KEY_WALKS = 32;

const PENDING_LIST_ACTIVE_COUNT = namedStatement(
  'pending_list_active_count',
  [],
  `SELECT count(*)::text AS count FROM clarification_bundles WHERE active`,
);

const PENDING_LIST_ROWS_OF = namedStatement(
  'pending_list_rows_of',
  ['pending_ids'],
  `SELECT m.id, m.task_session_id, m.task_id, NULL AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at
         FROM task_session_messages m
        WHERE m.metadata->>'pending_id' = ANY(:pending_ids) AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY m.metadata->>'pending_id', ${D2_ORDER}`,
);

/** The statements PendingListRepository runs, for `npm run sql:write`. */
export const pendingListStatements: readonly NamedStatement[] = [
  PENDING_LIST.heads,
  PENDING_LIST.candidates,
  PENDING_LIST.rewalk,
  PENDING_LIST_ACTIVE_COUNT,
  PENDING_LIST_ROWS_OF,
];

/**
 * The pending list as a keyset walk of the bundle index (`clarification_bundles`, one row per bundle,
 * in step with the activeness rule): ordered by the bundle's D1 created_at then pending_id (L6), so
 * a page reads about what it returns — never the backlog, never what the caller cannot see. A caller
 * who sees a few workspaces gets one walk per visibility key ('' = visible to everyone: no workspace,
 * or one that does not exist), merged; an unscoped caller, or one who sees many, one walk. Every row
 * is still checked against the L1c visibility rule on its task (M5) and the activeness rule itself,
 * so LIMIT counts returned bundles (L1a); a bundle with a row lacking its question_id is never listed
 * (L16). The merged walks read the index alone and re-check only the page they yield: per-key walks
 * are planned once for every key, and with the checks inside them the planner reads and re-checks every
 * bundle of every key before sorting (docs/benchmarks.md, "4. Scoped list"). When a row
 * of that page fails its re-check (the index out of step, L16, a filter naming a workspace that does
 * not exist), rows behind it may be missing, so the page is taken again with the checks inside the walks.
 */
@Injectable()
export class PendingListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The bundle index's count of active bundles: an index-only count over `clarification_bundles_session_idx` (WHERE active). */
  async activeCount(): Promise<number> {
    const row = await PENDING_LIST_ACTIVE_COUNT.row<{ count: string }>(this.dataSource, {});
    return Number(row?.count ?? 0);
  }

  async listHeads(query: PendingListQuery): Promise<PendingBundleHead[]> {
    const values = {
      limit: query.limit,
      workspace_id: query.workspaceId ?? null,
      created_since: query.createdSince ?? null,
      after_at: query.after?.at ?? null,
      after_id: query.after?.pendingId ?? null,
      visible_workspace_ids: visibleWorkspaceIds(query.visibility),
    };
    const keys = this.walkKeys(query);
    // The two common statements are named (planned once per connection): their generic plans keep the
    // ordered index walks (docs/benchmarks.md); the rare re-walk below is not kept prepared.
    if (keys === undefined) return PENDING_LIST.heads.run<PendingBundleHead>(this.dataSource, values);
    const candidates = await PENDING_LIST.candidates.run<PendingBundleHead & { listed: boolean | null }>(this.dataSource, {
      ...values,
      keys,
    });
    if (candidates.every((candidate) => candidate.listed === true)) {
      return candidates.map(({ pending_id, task_id, session_id, scan_key }) => ({ pending_id, task_id, session_id, scan_key }));
    }
    return PENDING_LIST.rewalk.rows<PendingBundleHead>(this.dataSource, { ...values, keys });
  }

  /** The visibility keys to walk one by one, or undefined for one filtered walk of every key. */
  private walkKeys(query: PendingListQuery): string[] | undefined {
    const candidates = query.workspaceId !== undefined ? [query.workspaceId, ''] : undefined;
    if (query.visibility.all) return candidates;
    const visible = new Set(['', ...query.visibility.ids]);
    const keys = candidates ? candidates.filter((key) => visible.has(key)) : [...visible];
    return keys.length <= MAX_KEY_WALKS ? keys : undefined;
  }

  /** The rows of the listed bundles, each bundle in D2 order. */
  rowsOf(pendingIds: string[]): Promise<BundleRow[]> {
    if (pendingIds.length === 0) return Promise.resolve([]);
    return PENDING_LIST_ROWS_OF.rows<BundleRow>(this.dataSource, { pending_ids: pendingIds });
  }
}
