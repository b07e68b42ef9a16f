import { Brackets } from 'typeorm';
import { keysetAfter, keysetInstantSql } from '#common';
import { taskVisibleTo, VISIBLE_WORKSPACE_IDS } from '#authorization';
import { conditionSql, type NamedStatement, namedStatement, statementBuilder } from '#persistence';
import { bundleIsActive, CLARIFICATION_REQUEST } from '#tasks';

/** The pending list's parameters, in their bind order (`keys` only where the walks are merged per key). */
const PARAMETERS = ['limit', 'workspace_id', 'created_since', 'after_at', 'after_id', VISIBLE_WORKSPACE_IDS] as const;
const WALK_PARAMETERS = [...PARAMETERS, 'keys'] as const;

export type PendingListParameter = (typeof WALK_PARAMETERS)[number];

/**
 * What the bundle index answers by itself: its partial-index predicate, the created_since bound, the
 * keyset position. The bounds are written without `:bound IS NULL OR …`: the statements are named, and
 * in the generic plan PostgreSQL settles on after five calls such a disjunction is a filter, not an index
 * condition — a deep page then walked its keys from their start, its cost linear in the backlog
 * (docs/benchmarks.md, "4. Scoped list"). An absent bound is the lowest position instead.
 */
function indexBounds(): Brackets {
  return new Brackets((query) =>
    query
      .where('b.active')
      .andWhere(`b.task_id <> ''`)
      .andWhere(`b.created_at >= COALESCE(CAST(:created_since AS timestamptz), '-infinity')`)
      .andWhere(keysetAfter({ at: 'b.created_at', id: 'b.pending_id' }, { at: 'after_at', id: 'after_id' })),
  );
}

/** The '' key (visible to everyone) holds a named workspace's tasks only when that workspace does not exist. */
const BLANK_KEY_FILTER = `(walk.key <> '' OR CAST(:workspace_id AS text) IS NULL OR NOT EXISTS (SELECT 1 FROM workspaces named_w WHERE named_w.id = :workspace_id))`;

/**
 * What each bundle is re-checked against: the workspace filter and L1c visibility on its task (M5), the
 * activeness rule itself, and L16. The activeness rule is a scalar sub-select: a bare EXISTS is pulled
 * up into a semi-join, which at 1M bundles the planner drives from every pending message (then sorts)
 * instead of walking the index in order and stopping at the LIMIT (docs/benchmarks.md, "4. Scoped list").
 */
function rowFilters(): Brackets {
  return new Brackets((query) =>
    query
      .where('(CAST(:workspace_id AS text) IS NULL OR t.workspace_id = :workspace_id)')
      .andWhere(taskVisibleTo('t'))
      .andWhere(`(SELECT ${bundleIsActive('b.pending_id')})`)
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM task_session_messages l16
          WHERE l16.metadata->>'pending_id' = b.pending_id AND l16.type = '${CLARIFICATION_REQUEST}'
            AND COALESCE(l16.metadata->>'question_id', '') = '')`,
      ),
  );
}

const HEAD_COLUMNS = ['b.pending_id', 'b.task_id', 'b.session_id', 'b.created_at', `${keysetInstantSql('b.created_at')} AS scan_key`];
const ORDER = 'b.created_at, b.pending_id';

export interface PendingListStatements {
  /** One walk of the bundle index, every row re-checked in it (an unscoped caller, or one who sees many workspaces). */
  heads: NamedStatement<(typeof PARAMETERS)[number]>;
  /** One index-only walk per visibility key, merged; each row says whether it passes its re-check. */
  candidates: NamedStatement<PendingListParameter>;
  /** The walks per key with the re-checks inside them: when a candidate failed its re-check. */
  rewalk: NamedStatement<PendingListParameter>;
}

/**
 * The pending list's statements, built with the query builder: its visibility disjunction and keyset
 * bound are the conditions every list shares. The texts are fixed (no value is inlined), so each is
 * sent as one named statement; `npm run sql:write` shows them in `libs/clarification/sql/`.
 */
function pendingListStatements(): PendingListStatements {
  const builder = statementBuilder;
  const heads = builder()
    .select(HEAD_COLUMNS)
    .from('clarification_bundles', 'b')
    .innerJoin('tasks', 't', 't.id = b.task_id')
    .where(indexBounds())
    .andWhere(rowFilters())
    .orderBy(ORDER);
  const walk = builder()
    .select(['b.pending_id', 'b.task_id', 'b.session_id', 'b.created_at'])
    .from('clarification_bundles', 'b')
    .where('b.visibility_key = walk.key')
    .andWhere(indexBounds())
    .andWhere(BLANK_KEY_FILTER)
    .orderBy(ORDER);
  // TypeORM's builder has no LATERAL join: the merge of the per-key walks is composed around its texts.
  const mergedWalks = `(SELECT walked.* FROM unnest(CAST(:keys AS text[])) AS walk(key)
      CROSS JOIN LATERAL (${walk.getQuery()} LIMIT :limit) walked
      ORDER BY walked.created_at, walked.pending_id LIMIT :limit)`;
  const candidates = builder()
    .select(['b.pending_id', 'b.task_id', 'b.session_id', `${keysetInstantSql('b.created_at')} AS scan_key`])
    .addSelect(`(t.id IS NOT NULL AND ${conditionSql(rowFilters())})`, 'listed')
    .from(mergedWalks, 'b')
    .leftJoin('tasks', 't', 't.id = b.task_id')
    .orderBy(ORDER);
  const checkedWalk = builder()
    .select(HEAD_COLUMNS)
    .from('clarification_bundles', 'b')
    .innerJoin('tasks', 't', 't.id = b.task_id')
    .where('b.visibility_key = walk.key')
    .andWhere(indexBounds())
    .andWhere(BLANK_KEY_FILTER)
    .andWhere(rowFilters())
    .orderBy(ORDER);
  const rewalk = `SELECT page.pending_id, page.task_id, page.session_id, page.scan_key
      FROM unnest(CAST(:keys AS text[])) AS walk(key)
     CROSS JOIN LATERAL (${checkedWalk.getQuery()} LIMIT :limit) page
     ORDER BY page.created_at, page.pending_id LIMIT :limit`;
  return {
    heads: namedStatement('pending_heads', PARAMETERS, `${heads.getQuery()} LIMIT :limit`),
    candidates: namedStatement('pending_candidates', WALK_PARAMETERS, candidates.getQuery()),
    rewalk: namedStatement('pending_rewalk', WALK_PARAMETERS, rewalk),
  };
}

export const PENDING_LIST = pendingListStatements();
