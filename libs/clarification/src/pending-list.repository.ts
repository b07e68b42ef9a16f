import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type WorkspaceVisibility } from '#authorization';
import { queryRows, runNamed } from '#persistence';
import { bundleIsActive, CLARIFICATION_REQUEST } from '#tasks';
import { D2_ORDER } from './bundle.repository.js';
import type { BundleRow } from './clarification.types.js';

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
const MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * The pending list as a keyset walk of the bundle index (`clarification_bundles`, one row per bundle,
 * in step with the activeness rule): ordered by the bundle's D1 created_at then pending_id (L6), so
 * a page reads about what it returns — never the backlog, never what the caller cannot see. A caller
 * who sees a few workspaces gets one walk per visibility key ('' = visible to everyone: no workspace,
 * or one that does not exist), merged; an unscoped caller, or one who sees many, one walk. Every row
 * is still checked against the L1c visibility rule on its task (M5) and the activeness rule itself,
 * inside the walk, so LIMIT counts returned bundles (L1a); a bundle with a row lacking its question_id
 * is never listed (L16).
 */
@Injectable()
export class PendingListRepository {
  constructor(private readonly dataSource: DataSource) {}

  listHeads(query: PendingListQuery): Promise<PendingBundleHead[]> {
    const parameters: unknown[] = [query.limit, query.workspaceId ?? null, query.createdSince ?? null, query.after?.at ?? null, query.after?.pendingId ?? null];
    const visibleIds = query.visibility.all ? null : [...query.visibility.ids];
    parameters.push(visibleIds);
    // The activeness rule is a scalar sub-select: a bare EXISTS is pulled up into a semi-join, which at
    // 1M bundles the planner drives from every pending message (then sorts) instead of walking the index
    // below in order and stopping at the LIMIT (issue 11 target 4: > 90 s vs 1.5 ms per first page).
    const filters = `b.active AND b.task_id <> ''
      AND ($2::text IS NULL OR t.workspace_id = $2)
      AND ($3::timestamptz IS NULL OR b.created_at >= $3)
      AND ($4::timestamptz IS NULL OR (b.created_at, b.pending_id) > ($4::timestamptz, $5::text))
      AND ($6::text[] IS NULL OR t.workspace_id = ''
           OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id)
           OR t.workspace_id = ANY($6::text[]))
      AND (SELECT ${bundleIsActive('b.pending_id')})
      AND NOT EXISTS (SELECT 1 FROM task_session_messages l16
                       WHERE l16.metadata->>'pending_id' = b.pending_id AND l16.type = '${CLARIFICATION_REQUEST}'
                         AND COALESCE(l16.metadata->>'question_id', '') = '')`;
    const columns = `b.pending_id, b.task_id, b.session_id, b.created_at, to_char(b.created_at AT TIME ZONE 'UTC', ${MICROS}) AS scan_key`;
    const keys = this.walkKeys(query);
    // Named (planned once per connection): its generic plan keeps the ordered index walks (issue 11 target 5, docs/benchmarks.md).
    if (keys === undefined) {
      return runNamed<PendingBundleHead>(
        this.dataSource,
        'pending_heads',
        `SELECT ${columns} FROM clarification_bundles b JOIN tasks t ON t.id = b.task_id
          WHERE ${filters} ORDER BY b.created_at, b.pending_id LIMIT $1`,
        parameters,
      );
    }
    parameters.push(keys);
    return runNamed<PendingBundleHead>(
      this.dataSource,
      'pending_heads',
      `SELECT page.pending_id, page.task_id, page.session_id, page.scan_key
         FROM unnest($7::text[]) AS walk(key)
        CROSS JOIN LATERAL (
          SELECT ${columns} FROM clarification_bundles b JOIN tasks t ON t.id = b.task_id
           WHERE b.visibility_key = walk.key AND ${filters}
             AND (walk.key <> '' OR $2::text IS NULL OR NOT EXISTS (SELECT 1 FROM workspaces named_w WHERE named_w.id = $2))
           ORDER BY b.created_at, b.pending_id LIMIT $1) page
        ORDER BY page.created_at, page.pending_id LIMIT $1`,
      parameters,
    );
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
    return queryRows<BundleRow>(
      this.dataSource,
      `SELECT m.id, m.task_session_id, m.task_id, NULL AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at
         FROM task_session_messages m
        WHERE m.metadata->>'pending_id' = ANY($1) AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY m.metadata->>'pending_id', ${D2_ORDER}`,
      [pendingIds],
    );
  }
}
