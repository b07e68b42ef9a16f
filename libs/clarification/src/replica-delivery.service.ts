import { randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../../config/src/index.js';
import { BundleRepository } from './bundle.repository.js';
import type { ClarificationResponse } from './clarification.types.js';
import { ReplicaDeliveryRepository } from './replica-delivery.repository.js';
import { DeliveryOutcome, type WaiterPresence, WaiterStore } from './waiter.store.js';

const DELIVERY_CHANNEL = 'parley_delivery';
const ACK_CHANNEL = 'parley_delivery_ack';
/** A replica refreshes its waiters' presence this often; older presence is taken for a dead replica. */
const HEARTBEAT_MS = 10_000;
const PRESENCE_FRESH_MS = 3 * HEARTBEAT_MS;
const RELISTEN_MS = 1_000;

/**
 * Several replicas share one database: a winning claim on one replica reaches a live waiter held by
 * another. Replicas record which bundles they hold waiters for; the winner stores the response as a
 * hand-off and NOTIFYs its id; the replica holding the waiter takes the hand-off (one taker: it, or
 * the winner giving up after the confirmation bound), delivers with the usual confirmation and
 * acknowledges. Without an acknowledged delivery the winner goes on with the resume path.
 */
@Injectable()
export class ReplicaDeliveryService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown, WaiterPresence {
  readonly replicaId = randomUUID();
  private readonly logger = new Logger('ReplicaDelivery');
  private readonly acks = new Map<string, (delivered: boolean) => void>();
  private listener: pg.Client | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private relistenTimer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly replicas: ReplicaDeliveryRepository,
    private readonly bundles: BundleRepository,
    private readonly waiters: WaiterStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.waiters.observePresence(this);
    await this.listen();
    this.heartbeat = setInterval(() => void this.replicas.heartbeat(this.replicaId, 10 * PRESENCE_FRESH_MS).catch(() => undefined), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Stops listening before the database closes, so a lost connection is not taken for a failure. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.relistenTimer);
    await this.listener?.end().catch(() => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replicas.withdrawReplica(this.replicaId).catch(() => undefined);
  }

  occupied(pendingId: string): void {
    this.replicas.announceWaiter(pendingId, this.replicaId).catch((error: unknown) => this.warn('presence not recorded', pendingId, error));
  }

  vacated(pendingId: string): void {
    this.replicas.withdrawWaiter(pendingId, this.replicaId).catch((error: unknown) => this.warn('presence not withdrawn', pendingId, error));
  }

  /** Hands the response to a live waiter on another replica; true once that replica delivered it. */
  async deliverElsewhere(pendingId: string, response: ClarificationResponse): Promise<boolean> {
    if (!(await this.replicas.waitingElsewhere(pendingId, this.replicaId, PRESENCE_FRESH_MS))) return false;
    const id = randomUUID();
    await this.replicas.storeHandoff(id, pendingId, response);
    try {
      const acknowledged = this.acknowledgement(id, this.config.deliveryConfirmTimeoutMs);
      await this.replicas.notify(DELIVERY_CHANNEL, JSON.stringify({ id, from: this.replicaId }));
      const delivered = await acknowledged;
      if (delivered !== undefined) return delivered;
      if (await this.replicas.takeHandoff(id)) return false;
      // Another replica took the hand-off and is delivering it: its delivery is bounded the same way.
      const late = await this.acknowledgement(id, this.config.deliveryConfirmTimeoutMs + 1_000);
      return late ?? !(await this.replicas.deliveryPending(pendingId));
    } finally {
      this.acks.delete(id);
    }
  }

  private acknowledgement(id: string, withinMs: number): Promise<boolean | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), withinMs);
      this.acks.set(id, (delivered) => {
        clearTimeout(timer);
        resolve(delivered);
      });
    });
  }

  private async listen(): Promise<void> {
    this.listener = await this.replicas.listen(
      [DELIVERY_CHANNEL, ACK_CHANNEL],
      (channel, payload) => this.onMessage(channel, payload),
      () => this.relisten(),
    );
  }

  private relisten(): void {
    if (this.closing) return;
    this.logger.warn({ msg: 'replica channel lost; listening again' });
    this.relistenTimer = setTimeout(() => {
      if (!this.closing) this.listen().catch(() => this.relisten());
    }, RELISTEN_MS);
    this.relistenTimer.unref();
  }

  private onMessage(channel: string, payload: string): void {
    let message: { id?: string; from?: string; delivered?: boolean };
    try {
      message = JSON.parse(payload) as typeof message;
    } catch {
      return;
    }
    if (!message.id) return;
    if (channel === ACK_CHANNEL) this.acks.get(message.id)?.(message.delivered === true);
    else if (channel === DELIVERY_CHANNEL && message.from !== this.replicaId) void this.receive(message.id);
  }

  /** Another replica won a claim: deliver to the waiters held here, if any, and acknowledge. */
  private async receive(id: string): Promise<void> {
    try {
      const peek = await this.replicas.peekHandoff(id);
      if (!peek || this.waiters.waiterCount(peek.pending_id) === 0) return;
      const handoff = await this.replicas.takeHandoff(id);
      if (!handoff) return;
      const outcome = await this.waiters.deliver(
        handoff.pending_id,
        handoff.response,
        async () => {
          await this.bundles.finalizeDelivery(handoff.pending_id);
        },
        this.config.deliveryConfirmTimeoutMs,
      );
      await this.replicas.notify(ACK_CHANNEL, JSON.stringify({ id, delivered: outcome === DeliveryOutcome.Delivered }));
    } catch (error) {
      this.warn('hand-off not delivered', id, error);
    }
  }

  private warn(msg: string, id: string, error: unknown): void {
    this.logger.warn({ msg, id, err: String(error) });
  }
}
