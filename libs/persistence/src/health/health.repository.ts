import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '../query/named-statement.js';

const PING_TIMEOUT_MS = 2_000;

const HEALTH_PING = namedStatement('health_ping', [], 'SELECT 1');

/** The statements HealthRepository runs, for `npm run sql:write`. */
export const healthStatements: readonly NamedStatement[] = [HEALTH_PING];

@Injectable()
export class HealthRepository {
  constructor(private readonly dataSource: DataSource) {}

  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database ping timed out')), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([HEALTH_PING.rows(this.dataSource, {}), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
