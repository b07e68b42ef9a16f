import { Injectable } from '@nestjs/common';
import { isDatabaseUnavailable } from '#common';
import { DatabaseListener } from '../connection/database-listener.js';
import { HealthRepository } from './health.repository.js';

/**
 * Whether a failed statement is explained by the database going away. A connection lost mid-transaction
 * surfaces in more shapes than any list of messages can know (the driver's, the pool's, the ORM's), so
 * an unrecognized failure also counts when the database does not answer right after it.
 */
@Injectable()
export class DatabaseAvailability {
  constructor(
    private readonly listener: DatabaseListener,
    private readonly health: HealthRepository,
  ) {}

  async explains(error: unknown): Promise<boolean> {
    if (isDatabaseUnavailable(error) || !this.listener.isReachable) return true;
    return this.health.ping().then(
      () => false,
      () => true,
    );
  }
}
