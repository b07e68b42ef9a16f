import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement, processIsLive, type SqlExecutor } from '#persistence';

const WAITER_PRESENCE_ANNOUNCE = namedStatement(
  'waiter_presence_announce',
  ['pending_id', 'process_id'],
  `INSERT INTO clarification_waiters (pending_id, process_id) VALUES (:pending_id, :process_id) ON CONFLICT (pending_id, process_id) DO NOTHING`,
);

const WAITER_PRESENCE_WITHDRAW = namedStatement(
  'waiter_presence_withdraw',
  ['pending_id', 'process_id'],
  `DELETE FROM clarification_waiters WHERE pending_id = :pending_id AND process_id = :process_id`,
);

const WAITER_PRESENCE_WITHDRAW_ALL = namedStatement(
  'waiter_presence_withdraw_all',
  ['process_id'],
  `DELETE FROM clarification_waiters WHERE process_id = :process_id`,
);

const WAITER_PRESENCE_FORGET_DEAD = namedStatement(
  'waiter_presence_forget_dead',
  [],
  `DELETE FROM clarification_waiters w WHERE NOT ${processIsLive('w.process_id')}`,
);

/** The statements WaiterPresenceRepository runs, for `npm run sql:write`. */
export const waiterPresenceStatements: readonly NamedStatement[] = [
  WAITER_PRESENCE_ANNOUNCE,
  WAITER_PRESENCE_WITHDRAW,
  WAITER_PRESENCE_WITHDRAW_ALL,
  WAITER_PRESENCE_FORGET_DEAD,
];

/** `clarification_waiters`: which process holds the agent's live wait of which bundle. */
@Injectable()
export class WaiterPresenceRepository {
  constructor(private readonly dataSource: DataSource) {}

  async announce(pendingId: string, processId: string, executor: SqlExecutor = this.dataSource): Promise<void> {
    await WAITER_PRESENCE_ANNOUNCE.rows(executor, { pending_id: pendingId, process_id: processId });
  }

  async withdraw(pendingId: string, processId: string): Promise<void> {
    await WAITER_PRESENCE_WITHDRAW.rows(this.dataSource, { pending_id: pendingId, process_id: processId });
  }

  /** Every presence of a process (at its shutdown). */
  async withdrawAll(processId: string): Promise<void> {
    await WAITER_PRESENCE_WITHDRAW_ALL.rows(this.dataSource, { process_id: processId });
  }

  /** Forgets the presence recorded by processes whose lease expired. */
  async forgetDead(): Promise<void> {
    await WAITER_PRESENCE_FORGET_DEAD.rows(this.dataSource, {});
  }
}
