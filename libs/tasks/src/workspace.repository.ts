import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { WorkspaceVisibility } from '#authorization';
import { queryRow } from '#persistence';
import type { WorkspaceRow } from './tasks.rows.js';

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

  list(visibility: WorkspaceVisibility): Promise<WorkspaceRow[]> {
    const query = this.dataSource
      .createQueryBuilder()
      .select(COLUMNS.map((column) => `w.${column}`))
      .from('workspaces', 'w')
      .orderBy('w.created_at', 'ASC')
      .addOrderBy('w.id', 'ASC');
    if (!visibility.all) {
      if (visibility.ids.length === 0) return Promise.resolve([]);
      query.where('w.id = ANY(CAST(:ids AS text[]))', { ids: [...visibility.ids] });
    }
    return query.getRawMany<WorkspaceRow>();
  }
}
