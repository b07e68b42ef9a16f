import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { processIsLive, type SqlExecutor } from '#persistence';

/** `clarification_waiters`: which process holds the agent's live wait of which bundle. */
@Injectable()
export class WaiterPresenceRepository {
  constructor(private readonly dataSource: DataSource) {}

  async announce(pendingId: string, processId: string, executor: SqlExecutor = this.dataSource): Promise<void> {
    await executor.query(
      `INSERT INTO clarification_waiters (pending_id, process_id) VALUES ($1, $2) ON CONFLICT (pending_id, process_id) DO NOTHING`,
      [pendingId, processId],
    );
  }

  async withdraw(pendingId: string, processId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM clarification_waiters WHERE pending_id = $1 AND process_id = $2`, [pendingId, processId]);
  }

  /** Every presence of a process (at its shutdown). */
  async withdrawAll(processId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM clarification_waiters WHERE process_id = $1`, [processId]);
  }

  /** Forgets the presence recorded by processes whose lease expired. */
  async forgetDead(): Promise<void> {
    await this.dataSource.query(`DELETE FROM clarification_waiters w WHERE NOT ${processIsLive('w.process_id')}`);
  }
}
