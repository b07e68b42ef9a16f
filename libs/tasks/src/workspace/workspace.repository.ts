import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type CursorPosition, keysetAfter, keysetInstantSql } from '#common';
import type { WorkspaceVisibility } from '#authorization';
import { namedStatement, type NamedStatement, statementBuilder } from '#persistence';
import type { ListedWorkspaceRow, WorkspaceRow } from '../tasks.rows.js';

const COLUMNS = ['id', 'name', 'owner_id', 'created_at'];

const WORKSPACE_INSERT = namedStatement(
  'workspace_insert',
  ['id', 'name', 'owner_id'],
  `INSERT INTO workspaces (id, name, owner_id) VALUES (:id, :name, :owner_id) RETURNING ${COLUMNS.join(', ')}`,
);

const LIST_PARAMETERS = ['after_at', 'after_id', 'limit'] as const;

/** One page of the workspaces: every one, or those among `:ids`. */
function workspaceList<const P extends string>(parameters: readonly P[], idFilter: string | undefined, variant: string): NamedStatement<P> {
  const query = statementBuilder()
    .select([...COLUMNS.map((column) => `w.${column}`), `${keysetInstantSql('w.created_at')} AS created_at_key`])
    .from('workspaces', 'w')
    .where(keysetAfter({ at: 'w.created_at', id: 'w.id' }, { at: 'after_at', id: 'after_id' }))
    .orderBy('w.created_at', 'ASC')
    .addOrderBy('w.id', 'ASC');
  if (idFilter !== undefined) query.andWhere(idFilter);
  return namedStatement('workspace_list', parameters, `${query.getQuery()} LIMIT :limit`, variant);
}

const WORKSPACE_LIST = {
  all: workspaceList(LIST_PARAMETERS, undefined, 'all'),
  visible: workspaceList([...LIST_PARAMETERS, 'ids'], 'w.id = ANY(CAST(:ids AS text[]))', 'visible'),
};

/** The statements WorkspaceRepository runs, for `npm run sql:write`. */
export const workspaceStatements: readonly NamedStatement[] = [WORKSPACE_INSERT, WORKSPACE_LIST.all, WORKSPACE_LIST.visible];

@Injectable()
export class WorkspaceRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(id: string, name: string, ownerId: string): Promise<WorkspaceRow> {
    return (await WORKSPACE_INSERT.row<WorkspaceRow>(this.dataSource, { id, name, owner_id: ownerId })) as WorkspaceRow;
  }

  /** One page of the visible workspaces, oldest first (created_at, then id: the keyset order). */
  list(visibility: WorkspaceVisibility, after: CursorPosition | undefined, limit: number): Promise<ListedWorkspaceRow[]> {
    const values = { after_at: after?.at ?? null, after_id: after?.id ?? null, limit };
    if (visibility.all) return WORKSPACE_LIST.all.rows<ListedWorkspaceRow>(this.dataSource, values);
    if (visibility.ids.length === 0) return Promise.resolve([]);
    return WORKSPACE_LIST.visible.rows<ListedWorkspaceRow>(this.dataSource, { ...values, ids: [...visibility.ids] });
  }
}
