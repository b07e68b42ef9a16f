import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { ClarificationRequest, ClarificationResponse } from './clarification.types.js';

export enum WaitFailure {
  Cancelled = 'cancelled',
  TimedOut = 'timed_out',
  Abandoned = 'abandoned',
  Aborted = 'aborted',
}

export class WaitError extends Error {
  constructor(readonly reason: WaitFailure) {
    super(`wait ended: ${reason}`);
  }
}

export enum DeliveryOutcome {
  NoWaiter = 'no_waiter',
  Delivered = 'delivered',
  Abandoned = 'abandoned',
}

/** What a waiter is offered: the response, handed over only once `confirm()` has succeeded. */
export interface Delivery {
  response: ClarificationResponse;
  /** Runs the durable finalize (once for all waiters); rejects when the delivery was abandoned. */
  confirm(): Promise<void>;
}

export interface Waiter {
  offer(delivery: Delivery): void;
  reject(error: WaitError): void;
}

/** Told when a bundle gains its first live waiter here and when it has none left. */
export interface WaiterPresence {
  occupied(pendingId: string): void;
  vacated(pendingId: string): void;
}

interface Entry {
  request: ClarificationRequest;
  waiters: Set<Waiter>;
  expiry: NodeJS.Timeout;
}

/**
 * The per-process store of live clarification entries and the agents blocked on them. Several
 * waiters may wait on one bundle; one delivery wakes all of them; a cancel wakes all with an error.
 * Nothing here is the authority on a bundle's state: the durable rows are.
 */
@Injectable()
export class WaiterStore implements BeforeApplicationShutdown {
  private readonly entries = new Map<string, Entry>();
  private presence: WaiterPresence | undefined;

  constructor(private readonly entryTtlMs: number) {}

  /** Registers (or keeps) the live entry of a bundle; it expires, cancelling its waiters, after the TTL. */
  register(request: ClarificationRequest): void {
    if (this.entries.has(request.pending_id)) return;
    const expiry = setTimeout(() => this.cancel(request.pending_id, WaitFailure.TimedOut), this.entryTtlMs);
    expiry.unref();
    this.entries.set(request.pending_id, { request, waiters: new Set(), expiry });
  }

  observePresence(presence: WaiterPresence): void {
    this.presence = presence;
  }

  get(pendingId: string): ClarificationRequest | undefined {
    return this.entries.get(pendingId)?.request;
  }

  waiterCount(pendingId: string): number {
    return this.entries.get(pendingId)?.waiters.size ?? 0;
  }

  pendingIdsOfSession(sessionId: string): string[] {
    return [...this.entries.values()].filter((entry) => entry.request.session_id === sessionId).map((entry) => entry.request.pending_id);
  }

  /** Adds a waiter to a live entry; returns false when the bundle has no live entry. */
  attach(pendingId: string, waiter: Waiter): boolean {
    const entry = this.entries.get(pendingId);
    if (!entry) return false;
    entry.waiters.add(waiter);
    if (entry.waiters.size === 1) this.presence?.occupied(pendingId);
    return true;
  }

  detach(pendingId: string, waiter: Waiter): void {
    const entry = this.entries.get(pendingId);
    if (entry?.waiters.delete(waiter) && entry.waiters.size === 0) this.presence?.vacated(pendingId);
  }

  /** Blocks until the bundle is delivered (resolves) or cancelled, timed out or aborted (rejects). */
  wait(pendingId: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ClarificationResponse> {
    return new Promise<ClarificationResponse>((resolve, reject) => {
      let settled = false;
      const finish = (action: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.detach(pendingId, waiter);
        action();
      };
      const waiter: Waiter = {
        // Once offered, the wait bound no longer applies: the confirmation (finalize) records the
        // answer as delivered, so a timeout firing while it runs would lose a confirmed answer.
        offer: (delivery) => {
          clearTimeout(timer);
          delivery.confirm().then(
            () => finish(() => resolve(delivery.response)),
            (error: unknown) => finish(() => reject(error instanceof WaitError ? error : new WaitError(WaitFailure.Abandoned))),
          );
        },
        reject: (error) => finish(() => reject(error)),
      };
      const onAbort = () => waiter.reject(new WaitError(WaitFailure.Aborted));
      const timer = setTimeout(() => waiter.reject(new WaitError(WaitFailure.TimedOut)), options.timeoutMs);
      if (!this.attach(pendingId, waiter)) waiter.reject(new WaitError(WaitFailure.Cancelled));
      else if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Delivery with confirmation: when live waiters exist, `finalize` (the durable confirmation) runs
   * exactly once before any waiter is handed the response. If it has not started within
   * `confirmWithinMs`, the delivery is abandoned and every waiter gets an error instead.
   */
  async deliver(
    pendingId: string,
    response: ClarificationResponse,
    finalize: () => Promise<void>,
    confirmWithinMs: number,
  ): Promise<DeliveryOutcome> {
    const entry = this.entries.get(pendingId);
    if (!entry || entry.waiters.size === 0) {
      this.remove(pendingId);
      return DeliveryOutcome.NoWaiter;
    }
    const waiters = [...entry.waiters];
    this.remove(pendingId);
    let confirmation: Promise<void> | undefined;
    let abandoned = false;
    let markStarted!: () => void;
    const started = new Promise<'started'>((resolve) => (markStarted = () => resolve('started')));
    const confirm = () => {
      if (abandoned) return Promise.reject(new WaitError(WaitFailure.Abandoned));
      markStarted();
      return (confirmation ??= finalize());
    };
    waiters.forEach((waiter) => waiter.offer({ response, confirm }));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), confirmWithinMs)));
    const first = await Promise.race([started, deadline]);
    clearTimeout(timer);
    if (first === 'late' && confirmation === undefined) {
      abandoned = true;
      waiters.forEach((waiter) => waiter.reject(new WaitError(WaitFailure.Abandoned)));
      return DeliveryOutcome.Abandoned;
    }
    await confirmation;
    return DeliveryOutcome.Delivered;
  }

  /** Closes the bundle's entry and wakes its waiters with an error; false when there was no live entry. */
  cancel(pendingId: string, reason: WaitFailure = WaitFailure.Cancelled): boolean {
    const entry = this.entries.get(pendingId);
    if (!entry) return false;
    this.remove(pendingId);
    [...entry.waiters].forEach((waiter) => waiter.reject(new WaitError(reason)));
    return true;
  }

  cancelSession(sessionId: string): string[] {
    const pendingIds = this.pendingIdsOfSession(sessionId);
    pendingIds.forEach((pendingId) => this.cancel(pendingId));
    return pendingIds;
  }

  private remove(pendingId: string): void {
    const entry = this.entries.get(pendingId);
    if (!entry) return;
    clearTimeout(entry.expiry);
    this.entries.delete(pendingId);
    if (entry.waiters.size > 0) this.presence?.vacated(pendingId);
  }

  /**
   * Drain: wakes every waiter (504 / tool error) *before* the HTTP server closes. Nest closes the
   * server before `onApplicationShutdown`, and the server waits for in-flight requests, so draining
   * any later would hold the shutdown for as long as the longest wait bound.
   */
  beforeApplicationShutdown(): void {
    for (const pendingId of [...this.entries.keys()]) this.cancel(pendingId);
  }
}
