import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type CursorPosition, keysetAfter, keysetInstantSql } from '#common';
import type { WorkspaceVisibility } from '#authorization';
import { queryRow } from '#persistence';
import type { ListedWorkspaceRow, WorkspaceRow } from '../tasks.rows.js';

const COLUMNS = ['id', 'name', 'owner_id', 'created_at'];

@Injectable()
export class WorkspaceRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(id: string, name: string, ownerId: string): Promise<WorkspaceRow> {
    return (await queryRow<WorkspaceRow>(
      this.dataSource,
      `INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $2, $3) RETURNING ${COLUMNS.join(', ')}`,
      [id, name, ownerId],
    )) as WorkspaceRow;
  }

  /** One page of the visible workspaces, oldest first (created_at, then id: the keyset order). */
  list(visibility: WorkspaceVisibility, after: CursorPosition | undefined, limit: number): Promise<ListedWorkspaceRow[]> {
    const query = this.dataSource
      .createQueryBuilder()
      .select([...COLUMNS.map((column) => `w.${column}`), `${keysetInstantSql('w.created_at')} AS created_at_key`])
      .from('workspaces', 'w')
      .where(keysetAfter({ at: 'w.created_at', id: 'w.id' }, { at: 'after_at', id: 'after_id' }), { after_at: after?.at ?? null, after_id: after?.id ?? null })
      .orderBy('w.created_at', 'ASC')
      .addOrderBy('w.id', 'ASC')
      .limit(limit);
    if (!visibility.all) {
      if (visibility.ids.length === 0) return Promise.resolve([]);
      query.andWhere('w.id = ANY(CAST(:ids AS text[]))', { ids: [...visibility.ids] });
    }
    return query.getRawMany<ListedWorkspaceRow>();
  }
}
