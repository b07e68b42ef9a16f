import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '../query/query-rows.js';

/** `parley_processes`: the leases of the server processes sharing the database. */
@Injectable()
export class ProcessLeaseRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Takes or renews the lease until now + ttl. */
  async renew(processId: string, ttlMs: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO parley_processes (id, expires_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = clock_timestamp(), expires_at = EXCLUDED.expires_at`,
      [processId, ttlMs],
    );
  }

  async release(processId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM parley_processes WHERE id = $1`, [processId]);
  }

  /** Forgets leases that expired long ago (their owners are gone for good). */
  async forgetExpired(olderThanMs: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `DELETE FROM parley_processes WHERE expires_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000) RETURNING id`,
      [olderThanMs],
    );
    return rows.length;
  }
}
