import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source.factory.js';
import { EmbeddedDatabase } from './embedded-database.js';

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
}

/** The database connection of one process: PostgreSQL at DATABASE_URL, or the embedded one. */
export class Database {
  private constructor(
    readonly dataSource: DataSource,
    private readonly embedded: EmbeddedDatabase | undefined,
  ) {}

  static async open(options: DatabaseOptions): Promise<Database> {
    const logger = new Logger('Database');
    const embedded = options.databaseUrl
      ? undefined
      : await EmbeddedDatabase.start(options.dataDir, (message) => logger.debug(message.trim()));
    const dataSource = createDataSource(options.databaseUrl ?? (embedded as EmbeddedDatabase).url);
    try {
      await dataSource.initialize();
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      if (applied.length > 0) logger.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    } catch (error) {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
      throw error;
    }
    logger.log(embedded ? `embedded PostgreSQL under ${options.dataDir}` : 'PostgreSQL at DATABASE_URL');
    return new Database(dataSource, embedded);
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}
