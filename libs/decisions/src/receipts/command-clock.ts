import { Injectable } from '@nestjs/common';

/** The owner lease fencing every receipt transition and every decision claim. */
export const COMMAND_LEASE_MS = 30_000;
/** How often a live sender renews its lease while ResolveBundle runs. */
export const LEASE_HEARTBEAT_MS = 10_000;
/** The retry horizon: receipts are kept (and replayed) this long, then swept. */
export const RECEIPT_RETENTION_MS = 7 * 24 * 3_600_000;

/** The one clock of every lease decision; a provider, so tests can move time. */
@Injectable()
export class CommandClock {
  now(): Date {
    return new Date();
  }
}

export function plus(at: Date, ms: number): Date {
  return new Date(at.getTime() + ms);
}
