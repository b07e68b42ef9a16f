import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { PendingListService, WaiterStore } from '#clarification';
import { ParleyMetrics } from '#observability';
import { Database } from '#persistence';

/** The pg pool TypeORM's PostgreSQL driver opened (`driver.master`). */
function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}

/** The gauges, each read from its source when /metrics is scraped: nothing is counted between scrapes. */
@Injectable()
export class OperationalGauges implements OnModuleInit {
  constructor(
    private readonly metrics: ParleyMetrics,
    private readonly pending: PendingListService,
    private readonly waiters: WaiterStore,
    private readonly dataSource: DataSource,
    @Inject(Database) private readonly database: Database,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge('parley_active_bundles', 'Bundles that are active (answerable) now, from the bundle index', async () => [
      { value: await this.pending.activeCount() },
    ]);
    this.metrics.gauge('parley_live_waiters', 'Callers blocked on a bundle in this process (agent asks, /wait long polls)', () => [
      { value: this.waiters.pendingIds().reduce((total, pendingId) => total + this.waiters.waiterCount(pendingId), 0) },
    ]);
    this.metrics.gauge(
      'parley_db_pool_connections',
      "Connections of this process's database pool: in use (checked out) and idle",
      () => {
        const pool = poolOf(this.dataSource);
        return [
          { labels: { state: 'in_use' }, value: pool.totalCount - pool.idleCount },
          { labels: { state: 'idle' }, value: pool.idleCount },
        ];
      },
      ['state'],
    );
    this.metrics.gauge('parley_db_connections_lost', 'Idle connections of this process the database ended (terminated, restarted, failed over), since start', () => [
      { value: this.database.reachability.lostConnections },
    ]);
    this.metrics.gauge('parley_db_pool_waiting', 'Queries waiting for a connection of the pool', () => [
      { value: poolOf(this.dataSource).waitingCount },
    ]);
  }
}
