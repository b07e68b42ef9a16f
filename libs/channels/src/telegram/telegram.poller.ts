import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import { ProcessLease } from '#persistence';
import { TelegramApi } from './telegram-api.client.js';
import { TelegramPollerRepository } from './telegram-poller.repository.js';
import { parseUpdate } from './telegram-update.js';
import { TelegramUpdateService } from './telegram-update.service.js';

/** getUpdates holds the request this long when there is nothing to read (Telegram's long poll). */
const LONG_POLL_SECONDS = 25;
/** The poller's lease outlives one long poll, so its holder renews it before it can lapse. */
const LEASE_MS = (LONG_POLL_SECONDS + 20) * 1000;
/** How soon a process that does not hold the lease (or failed a poll) tries again. */
const RETRY_MS = 2_000;

/**
 * Reads Telegram's updates by long polling, when TELEGRAM_BOT_TOKEN is set and no webhook secret is:
 * exactly one process across the replicas polls at a time (a lease in PostgreSQL; the others wait for
 * it to lapse). Each update is handled, then the offset past it is recorded with the lease: a process
 * that dies in between leaves that update to be read again, and its update id — the idempotency key —
 * makes the second reading change nothing.
 */
@Injectable()
export class TelegramPoller implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('TelegramPoller');
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly api: TelegramApi,
    private readonly pollers: TelegramPollerRepository,
    private readonly updates: TelegramUpdateService,
    private readonly lease: ProcessLease,
  ) {}

  onApplicationBootstrap(): void {
    const telegram = this.config.chat.telegram;
    if (!telegram || telegram.webhookSecret !== undefined) return;
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.abort.abort(new Error('shutting down'));
    await this.loop;
    await this.pollers.release(this.lease.id).catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const offset = await this.pollers.acquire(this.lease.id, LEASE_MS);
        if (offset === undefined) await this.pause(RETRY_MS);
        else await this.pollOnce(offset);
      } catch (error) {
        if (this.stopped) return;
        this.logger.warn({ msg: 'Telegram updates not read', err: String(error) });
        await this.pause(RETRY_MS);
      }
    }
  }

  private async pollOnce(offset: number): Promise<void> {
    const batch = await this.api.call<unknown[]>(
      'getUpdates',
      { offset, timeout: LONG_POLL_SECONDS, allowed_updates: ['callback_query', 'message'] },
      { waitMs: LONG_POLL_SECONDS * 1000, signal: this.abort.signal },
    );
    for (const raw of batch) {
      if (this.stopped) return;
      const update = parseUpdate(raw);
      if (!update) continue;
      await this.updates.handle(update).catch((error: unknown) => this.logger.warn({ msg: 'Telegram update not handled', update_id: update.update_id, err: String(error) }));
      if (!(await this.pollers.advance(this.lease.id, update.update_id + 1, LEASE_MS))) return;
    }
    if (batch.length === 0) await this.pollers.advance(this.lease.id, offset, LEASE_MS);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.abort.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
  }
}
