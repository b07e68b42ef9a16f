import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ProcessLease } from '#persistence';
import { WaiterPresenceRepository } from './waiter-presence.repository.js';
import { type WaiterPresence, WaiterStore } from './waiter.store.js';

/**
 * Records in PostgreSQL which bundles this process holds the agent's live wait of, so a winning
 * claim on another replica hands the answer here instead of resuming the agent.
 */
@Injectable()
export class WaiterPresenceService implements WaiterPresence, OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WaiterPresence');

  constructor(
    private readonly presence: WaiterPresenceRepository,
    private readonly waiters: WaiterStore,
    private readonly lease: ProcessLease,
  ) {}

  onModuleInit(): void {
    this.waiters.observePresence(this);
    this.lease.onHeartbeat(() => void this.presence.forgetDead().catch(() => undefined));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.presence.withdrawAll(this.lease.id).catch(() => undefined);
  }

  /** Records, in the ask's own transaction, that this process holds the agent's wait on the bundle it creates. */
  announceIn(manager: EntityManager, pendingId: string): Promise<void> {
    return this.presence.announce(pendingId, this.lease.id, manager);
  }

  occupied(pendingId: string): void {
    this.presence.announce(pendingId, this.lease.id).catch((error: unknown) => this.warn('presence not recorded', pendingId, error));
  }

  vacated(pendingId: string): void {
    this.presence.withdraw(pendingId, this.lease.id).catch((error: unknown) => this.warn('presence not withdrawn', pendingId, error));
  }

  private warn(msg: string, pendingId: string, error: unknown): void {
    this.logger.warn({ msg, pending_id: pendingId, err: String(error) });
  }
}
