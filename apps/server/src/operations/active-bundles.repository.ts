import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';

/** The bundle index's count of active bundles: an index-only count over `clarification_bundles_session_idx` (WHERE active). */
@Injectable()
export class ActiveBundlesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async count(): Promise<number> {
    const row = await queryRow<{ count: string }>(this.dataSource, `SELECT count(*)::text AS count FROM clarification_bundles WHERE active`);
    return Number(row?.count ?? 0);
  }
}
