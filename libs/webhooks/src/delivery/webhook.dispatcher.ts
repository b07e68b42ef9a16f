import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import { OutboundClient, type OutboundReply } from '#outbound';
import { DatabaseListener, ProcessLease } from '#persistence';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { type OutgoingDelivery, renderBody, webhookEventOf } from './webhook-payload.js';
import { DELIVERY_HEADER, EVENT_HEADER, signPayload, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './webhook-signature.js';
import { type DeliveryAttempt, DeliveryState, WEBHOOK_CHANNEL } from '../webhook.types.js';

/** A claimed delivery stays this process's for the attempt's bound plus this margin. */
const LEASE_MARGIN_MS = 10_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Finished deliveries (the delivery log) are kept this long. */
export const DELIVERY_LOG_RETENTION_MS = 30 * 86_400_000;
const SHUTDOWN_REASON = 'shutting down';

/** The delay before attempt `attempt + 1`: exponential from the base, capped, with "equal jitter" (half fixed, half random). */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const backoff = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(backoff / 2 + (backoff / 2) * random());
}

/** Why an attempt failed, or null when it was delivered (a 2xx; a redirect is not followed, so it fails too). */
function failureOf(reply: OutboundReply): string | null {
  if (reply.kind !== 'answered') return reply.reason;
  return reply.status >= 200 && reply.status <= 299 ? null : `HTTP ${reply.status}`;
}

/**
 * Sends the outbox's deliveries, on every replica. Woken by the NOTIFY of the transaction that queued
 * them (and by a fallback poll, and when the database comes back), it claims due deliveries — each
 * claimed by one process only — and POSTs them, signed, up to WEBHOOK_CONCURRENCY at a time. A 2xx
 * delivers; anything else is retried with backoff, and counts against the subscription.
 *
 * At least once: a process that dies mid-send leaves its claim to expire, and another process sends
 * it again with the same `X-Parley-Delivery` / `Idempotency-Key` (the delivery id) for the receiver
 * to deduplicate on.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Map<string, AbortController>();
  private readonly sends = new Set<Promise<void>>();
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly listener: DatabaseListener,
    private readonly lease: ProcessLease,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbound: OutboundClient,
  ) {}

  onApplicationBootstrap(): void {
    this.listener.listen(WEBHOOK_CHANNEL, () => this.poll());
    this.listener.onReconnect(() => this.poll());
    this.timers = [
      setInterval(() => this.poll(), this.config.webhooks.pollIntervalMs),
      setInterval(() => void this.prune(), PRUNE_EVERY_MS),
    ];
    this.timers.forEach((timer) => timer.unref());
    this.poll();
    void this.prune();
  }

  /** Stops claiming, aborts the sends in flight and gives their deliveries back (their attempt not counted). */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.timers.forEach((timer) => clearInterval(timer));
    await this.polling;
    const held = [...this.inFlight.keys()];
    this.inFlight.forEach((controller) => controller.abort(new Error(SHUTDOWN_REASON)));
    await Promise.all(this.sends);
    await this.deliveries.release(held, this.lease.id).catch(() => undefined);
  }

  /** Resolves once every delivery due now has been sent (or attempted) by this process. */
  async drained(): Promise<void> {
    for (;;) {
      this.poll();
      await this.polling;
      if (this.sends.size === 0) return;
      await Promise.race(this.sends);
    }
  }

  private poll(): void {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.claimAndSend()
      .catch((error: unknown) => this.logger.warn({ msg: 'webhook outbox not read', err: String(error) }))
      .finally(() => {
        this.polling = undefined;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.poll();
        }
      });
  }

  private async claimAndSend(): Promise<void> {
    const settings = this.config.webhooks;
    while (!this.stopped) {
      const room = settings.concurrency - this.inFlight.size;
      if (room <= 0) return;
      const claimed = await this.deliveries.claimDue(this.lease.id, room, settings.timeoutMs + LEASE_MARGIN_MS);
      for (const delivery of claimed) this.start(delivery);
      if (claimed.length < room) return;
    }
  }

  private start(delivery: OutgoingDelivery): void {
    const controller = new AbortController();
    this.inFlight.set(delivery.id, controller);
    const send = this.send(delivery, controller.signal)
      .catch((error: unknown) => this.logger.warn({ msg: 'webhook delivery not recorded', delivery_id: delivery.id, err: String(error) }))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.sends.delete(send);
        this.poll();
      });
    this.sends.add(send);
  }

  private async send(delivery: OutgoingDelivery, signal: AbortSignal): Promise<void> {
    const settings = this.config.webhooks;
    const body = renderBody(delivery, this.config.publicUrl ?? `http://${this.config.host}:${this.config.port}`);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Parley-Webhooks/1',
      [DELIVERY_HEADER]: delivery.id,
      'idempotency-key': delivery.id,
      [EVENT_HEADER]: webhookEventOf(delivery.event_type) ?? delivery.event_type,
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signPayload(delivery.secret, timestamp, body),
    };
    const started = Date.now();
    const reply = await this.outbound.post(delivery.url, body, headers, { timeoutMs: settings.timeoutMs, signal });
    if (signal.aborted) return;
    const statusCode = reply.kind === 'answered' ? reply.status : null;
    const error = failureOf(reply);
    const attempt: DeliveryAttempt = { at: new Date(started).toISOString(), status_code: statusCode, error, duration_ms: Date.now() - started };
    if (error === null) {
      await this.deliveries.succeeded(delivery.id, this.lease.id, attempt);
      return;
    }
    const retryInMs = retryDelayMs(delivery.attempts, settings.retryBaseMs, settings.retryMaxMs);
    const outcome = await this.deliveries.failed(delivery.id, this.lease.id, attempt, {
      statusCode,
      error,
      retryInMs,
      maxAttempts: settings.maxAttempts,
      disableAfter: settings.disableAfterFailures,
    });
    this.logger.warn({ msg: 'webhook attempt failed', delivery_id: delivery.id, attempt: delivery.attempts, err: error, state: outcome.state });
    if (outcome.subscriptionDisabled) {
      this.logger.warn({ msg: 'webhook subscription disabled after consecutive failures', subscription_id: delivery.subscription_id });
    }
    // Sooner than the fallback poll: look again when this retry is due.
    if (outcome.state === DeliveryState.Pending && retryInMs < settings.pollIntervalMs) setTimeout(() => this.poll(), retryInMs).unref();
  }

  private async prune(): Promise<void> {
    await this.deliveries.prune(new Date(Date.now() - DELIVERY_LOG_RETENTION_MS)).catch((error: unknown) => {
      this.logger.warn({ msg: 'webhook delivery log not pruned', err: String(error) });
    });
  }
}
