import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ProcessLeaseRepository } from './process-lease.repository.js';

export interface LeaseTiming {
  ttlMs: number;
  heartbeatMs: number;
}

/** SQL condition: the process named by `processIdExpression` holds an unexpired lease. */
export function processIsLive(processIdExpression: string): string {
  return `EXISTS (SELECT 1 FROM parley_processes live_p WHERE live_p.id = ${processIdExpression} AND live_p.expires_at > clock_timestamp())`;
}

/**
 * This process's lease in PostgreSQL: taken at start, renewed every heartbeat, released at shutdown.
 * Work the process owns (a delivery in flight) is recorded with its id; other processes take such
 * work over only once the lease has expired — a process that dies is cleaned up by the others.
 */
@Injectable()
export class ProcessLease implements OnModuleInit, OnApplicationShutdown {
  readonly id = randomUUID();
  private readonly logger = new Logger('ProcessLease');
  private readonly beats = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly leases: ProcessLeaseRepository,
    private readonly timing: LeaseTiming,
  ) {}

  get ttlMs(): number {
    return this.timing.ttlMs;
  }

  async onModuleInit(): Promise<void> {
    await this.leases.renew(this.id, this.timing.ttlMs);
    this.timer = setInterval(() => void this.beat(), this.timing.heartbeatMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.leases.release(this.id).catch(() => undefined);
  }

  /** Runs `work` after each heartbeat that renewed the lease (periodic sweeps ride on it). */
  onHeartbeat(work: () => void): void {
    this.beats.add(work);
  }

  private async beat(): Promise<void> {
    try {
      await this.leases.renew(this.id, this.timing.ttlMs);
    } catch (error) {
      this.logger.warn({ msg: 'lease not renewed', err: String(error) });
      return;
    }
    for (const work of this.beats) work();
  }
}
