import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '#config';
import { Database } from './connection/database.js';
import { DatabaseListener } from './connection/database-listener.js';
import { DatabaseAvailability } from './health/database-availability.js';
import { HealthController } from './health/health.controller.js';
import { HealthRepository } from './health/health.repository.js';
import { ProcessLease } from './lease/process-lease.js';
import { ProcessLeaseRepository } from './lease/process-lease.repository.js';

@Global()
@Module({
  controllers: [HealthController],
  providers: [
    HealthRepository,
    DatabaseAvailability,
    DatabaseListener,
    ProcessLeaseRepository,
    {
      provide: ProcessLease,
      inject: [ProcessLeaseRepository, APP_CONFIG],
      useFactory: (leases: ProcessLeaseRepository, config: AppConfig) =>
        new ProcessLease(leases, { ttlMs: config.leaseTtlMs, heartbeatMs: config.leaseHeartbeatMs }),
    },
    {
      provide: Database,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        Database.open({
          databaseUrl: config.databaseUrl,
          listenUrl: config.databaseListenUrl,
          dataDir: config.dataDir,
          poolSize: config.dbPoolSize,
          connectTimeoutMs: config.dbConnectTimeoutMs,
          acquireTimeoutMs: config.dbPoolAcquireTimeoutMs,
          statementTimeoutMs: config.dbStatementTimeoutMs,
          idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
          preparedStatements: config.databasePreparedStatements,
        }),
    },
    { provide: DataSource, inject: [Database], useFactory: (database: Database) => database.dataSource },
  ],
  exports: [DataSource, Database, DatabaseListener, DatabaseAvailability, ProcessLease],
})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(@Inject(Database) private readonly database: Database) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
