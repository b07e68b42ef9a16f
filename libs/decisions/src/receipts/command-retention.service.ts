import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { CommandClock, plus, RECEIPT_RETENTION_MS } from './command-clock.js';
import { CommandReceiptRepository } from './command-receipt.repository.js';
import { abandonedSendReply } from './send-outcome.js';

const SWEEP_EVERY_MS = 10_000;
const STALE_BATCH = 100;

export interface SweepResult {
  uncertain: number;
  receipts: number;
  claims: number;
}

/**
 * The background sweep, on every replica: a started send whose owner is gone (lease expired, or past
 * the 7-day retry horizon) becomes uncertain and frees its worker; receipts are kept 7 days.
 */
@Injectable()
export class CommandRetentionService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('CommandRetention');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly receipts: CommandReceiptRepository,
    private readonly clock: CommandClock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.warn({ msg: 'command sweep failed', err: String(error) }));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<SweepResult> {
    const now = this.clock.now();
    const horizonStart = plus(now, -RECEIPT_RETENTION_MS);
    let uncertain = 0;
    for (const key of await this.receipts.staleSends(now, horizonStart, STALE_BATCH)) {
      if (await this.receipts.expireStaleSend(key, abandonedSendReply(key.requestId).body, now, horizonStart)) uncertain += 1;
    }
    const pruned = await this.receipts.prune(now, horizonStart);
    if (uncertain + pruned.receipts + pruned.claims > 0) this.logger.log({ msg: 'command sweep', uncertain, ...pruned });
    return { uncertain, ...pruned };
  }
}
