import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '../query/named-statement.js';

const PROCESS_LEASE_RENEW = namedStatement(
  'process_lease_renew',
  ['process_id', 'ttl_ms'],
  `INSERT INTO parley_processes (id, expires_at) VALUES (:process_id, clock_timestamp() + make_interval(secs => :ttl_ms::double precision / 1000))
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = clock_timestamp(), expires_at = EXCLUDED.expires_at`,
);

const PROCESS_LEASE_RELEASE = namedStatement(
  'process_lease_release',
  ['process_id'],
  `DELETE FROM parley_processes WHERE id = :process_id`,
);

const PROCESS_LEASE_FORGET_EXPIRED = namedStatement(
  'process_lease_forget_expired',
  ['older_than_ms'],
  `DELETE FROM parley_processes WHERE expires_at < clock_timestamp() - make_interval(secs => :older_than_ms::double precision / 1000) RETURNING id`,
);

/** The statements ProcessLeaseRepository runs, for `npm run sql:write`. */
export const processLeaseStatements: readonly NamedStatement[] = [
  PROCESS_LEASE_RENEW,
  PROCESS_LEASE_RELEASE,
  PROCESS_LEASE_FORGET_EXPIRED,
];

/** `parley_processes`: the leases of the server processes sharing the database. */
@Injectable()
export class ProcessLeaseRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Takes or renews the lease until now + ttl. */
  async renew(processId: string, ttlMs: number): Promise<void> {
    await PROCESS_LEASE_RENEW.rows(this.dataSource, { process_id: processId, ttl_ms: ttlMs });
  }

  async release(processId: string): Promise<void> {
    await PROCESS_LEASE_RELEASE.rows(this.dataSource, { process_id: processId });
  }

  /** Forgets leases that expired long ago (their owners are gone for good). */
  async forgetExpired(olderThanMs: number): Promise<number> {
    const rows = await PROCESS_LEASE_FORGET_EXPIRED.rows<{ id: string }>(this.dataSource, { older_than_ms: olderThanMs });
    return rows.length;
  }
}
