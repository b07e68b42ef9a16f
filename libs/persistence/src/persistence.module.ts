import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/src/index.js';
import { Database } from './database.js';
import { HealthController } from './health.controller.js';
import { HealthRepository } from './health.repository.js';

@Global()
@Module({
  controllers: [HealthController],
  providers: [
    HealthRepository,
    {
      provide: Database,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => Database.open(config),
    },
    { provide: DataSource, inject: [Database], useFactory: (database: Database) => database.dataSource },
  ],
  exports: [DataSource],
})
export class PersistenceModule implements OnApplicationShutdown {
  constructor(@Inject(Database) private readonly database: Database) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
