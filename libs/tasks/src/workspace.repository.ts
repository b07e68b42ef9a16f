import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type CursorPosition, keysetInstantSql } from '#common';
import type { WorkspaceVisibility } from '#authorization';
import { queryRow } from '#persistence';
import type { ListedWorkspaceRow, WorkspaceRow } from './tasks.rows.js';

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
      .where('TRUE')
      .orderBy('w.created_at', 'ASC')
      .addOrderBy('w.id', 'ASC')
      .limit(limit);
    if (!visibility.all) {
      if (visibility.ids.length === 0) return Promise.resolve([]);
      query.andWhere('w.id = ANY(CAST(:ids AS text[]))', { ids: [...visibility.ids] });
    }
    if (after) {
      query.andWhere('(w.created_at, w.id) > (CAST(:afterAt AS timestamptz), CAST(:afterId AS text))', { afterAt: after.at, afterId: after.id });
    }
    return query.getRawMany<ListedWorkspaceRow>();
  }
}
