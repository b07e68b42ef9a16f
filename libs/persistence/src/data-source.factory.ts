import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../migrations/index.js';

export function createDataSource(url: string, poolSize = 20): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    synchronize: false,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each',
    extra: { max: poolSize },
    logging: false,
  });
}
