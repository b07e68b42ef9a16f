import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { keysetInstantSql } from '#common';
import { type WorkspaceVisibility } from '#authorization';
import { queryRow, queryRows, runNamed } from '#persistence';
import { bundleIsActive, CLARIFICATION_REQUEST } from '#tasks';
import { D2_ORDER } from '../bundle/bundle.sql.js';
import type { BundleRow } from '../bundle/clarification.types.js';

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

/**
 * What the bundle index answers by itself: its partial-index predicate, the created_since bound, the
 * keyset position. The bounds are written without `$n IS NULL OR …`: the statements are named, and in
 * the generic plan PostgreSQL settles on after five calls such a disjunction is a filter, not an index
 * condition — a deep page then walked its keys from their start (10 ms instead of 2 ms on the last
 * scoped page at 1M bundles, linear in the backlog). An absent bound is the lowest position instead.
 */
const INDEX_FILTERS = `b.active AND b.task_id <> ''
      AND b.created_at >= COALESCE($3::timestamptz, '-infinity')
      AND (b.created_at, b.pending_id) > (COALESCE($4::timestamptz, '-infinity'), COALESCE($5::text, ''))`;

/** The '' key (visible to everyone) holds a named workspace's tasks only when that workspace does not exist. */
const BLANK_KEY_FILTER = `(walk.key <> '' OR $2::text IS NULL OR NOT EXISTS (SELECT 1 FROM workspaces named_w WHERE named_w.id = $2))`;

/**
 * What each bundle is re-checked against: the workspace filter and L1c visibility on its task (M5), the
 * activeness rule itself, and L16. The activeness rule is a scalar sub-select: a bare EXISTS is pulled
 * up into a semi-join, which at 1M bundles the planner drives from every pending message (then sorts)
 * instead of walking the index in order and stopping at the LIMIT (> 90 s vs 1.5 ms).
 */
const ROW_FILTERS = `($2::text IS NULL OR t.workspace_id = $2)
      AND ($6::text[] IS NULL OR t.workspace_id = ''
           OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id)
           OR t.workspace_id = ANY($6::text[]))
      AND (SELECT ${bundleIsActive('b.pending_id')})
      AND NOT EXISTS (SELECT 1 FROM task_session_messages l16
                       WHERE l16.metadata->>'pending_id' = b.pending_id AND l16.type = '${CLARIFICATION_REQUEST}'
                         AND COALESCE(l16.metadata->>'question_id', '') = '')`;

const HEAD_COLUMNS = `b.pending_id, b.task_id, b.session_id, b.created_at, ${keysetInstantSql('b.created_at')} AS scan_key`;

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
 * bundle of every key before sorting (65 ms vs 1.4 ms at 100k bundles). When a row
 * of that page fails its re-check (the index out of step, L16, a filter naming a workspace that does
 * not exist), rows behind it may be missing, so the page is taken again with the checks inside the walks.
 */
@Injectable()
export class PendingListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The bundle index's count of active bundles: an index-only count over `clarification_bundles_session_idx` (WHERE active). */
  async activeCount(): Promise<number> {
    const row = await queryRow<{ count: string }>(this.dataSource, `SELECT count(*)::text AS count FROM clarification_bundles WHERE active`);
    return Number(row?.count ?? 0);
  }

  async listHeads(query: PendingListQuery): Promise<PendingBundleHead[]> {
    const parameters: unknown[] = [query.limit, query.workspaceId ?? null, query.createdSince ?? null, query.after?.at ?? null, query.after?.pendingId ?? null];
    const visibleIds = query.visibility.all ? null : [...query.visibility.ids];
    parameters.push(visibleIds);
    const keys = this.walkKeys(query);
    // The two common statements are named (planned once per connection): their generic plans keep the
    // ordered index walks (docs/benchmarks.md); the rare re-walk below stays unnamed.
    if (keys === undefined) {
      return runNamed<PendingBundleHead>(
        this.dataSource,
        'pending_heads',
        `SELECT ${HEAD_COLUMNS} FROM clarification_bundles b JOIN tasks t ON t.id = b.task_id
          WHERE ${INDEX_FILTERS} AND ${ROW_FILTERS} ORDER BY b.created_at, b.pending_id LIMIT $1`,
        parameters,
      );
    }
    parameters.push(keys);
    const candidates = await runNamed<PendingBundleHead & { listed: boolean | null }>(
      this.dataSource,
      'pending_candidates',
      `SELECT b.pending_id, b.task_id, b.session_id, ${keysetInstantSql('b.created_at')} AS scan_key,
              (t.id IS NOT NULL AND ${ROW_FILTERS}) AS listed
         FROM (SELECT walked.* FROM unnest($7::text[]) AS walk(key)
                CROSS JOIN LATERAL (
                  SELECT b.pending_id, b.task_id, b.session_id, b.created_at FROM clarification_bundles b
                   WHERE b.visibility_key = walk.key AND ${INDEX_FILTERS} AND ${BLANK_KEY_FILTER}
                   ORDER BY b.created_at, b.pending_id LIMIT $1) walked
                ORDER BY walked.created_at, walked.pending_id LIMIT $1) b
         LEFT JOIN tasks t ON t.id = b.task_id
        ORDER BY b.created_at, b.pending_id`,
      parameters,
    );
    if (candidates.every((candidate) => candidate.listed === true)) {
      return candidates.map(({ pending_id, task_id, session_id, scan_key }) => ({ pending_id, task_id, session_id, scan_key }));
    }
    return queryRows<PendingBundleHead>(
      this.dataSource,
      `SELECT page.pending_id, page.task_id, page.session_id, page.scan_key
         FROM unnest($7::text[]) AS walk(key)
        CROSS JOIN LATERAL (
          SELECT ${HEAD_COLUMNS} FROM clarification_bundles b JOIN tasks t ON t.id = b.task_id
           WHERE b.visibility_key = walk.key AND ${INDEX_FILTERS} AND ${BLANK_KEY_FILTER} AND ${ROW_FILTERS}
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
