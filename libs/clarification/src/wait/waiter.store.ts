import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { DeadlineWheel, type Expiring } from './deadline.wheel.js';

export enum WaitFailure {
  Cancelled = 'cancelled',
  Expired = 'expired',
  Superseded = 'superseded',
  Detached = 'detached',
  TimedOut = 'timed_out',
  Aborted = 'aborted',
  ShuttingDown = 'shutting_down',
}

/**
 * Who waits: the session's agent (its in-session ask, or a /wait with its agent token — or anyone
 * while auth is disabled) consumes the answer, so a delivery to it must be confirmed; an observer is
 * only told the final outcome and never counts as delivery.
 */
export enum WaiterRole {
  Agent = 'agent',
  Observer = 'observer',
}

export enum DeliveryOutcome {
  Delivered = 'delivered',
  NoWaiter = 'no_waiter',
  Failed = 'failed',
}

/** Told when a bundle gains its first live agent waiter here and when it has none left. */
export interface WaiterPresence {
  occupied(pendingId: string): void;
  vacated(pendingId: string): void;
}

export interface WaitOptions {
  role: WaiterRole;
  timeoutMs: number;
}

/** Told, once, how a parked wait ended: the bundle's answer reached it, or the wait ended for `reason`. */
export interface WaitListener {
  answered(response: ClarificationResponse): void;
  ended(reason: WaitFailure): void;
}

/** A parked wait: how to end it early (the caller went away or cancelled, its credential was revoked). */
export interface ParkedWait {
  abort(): void;
}

/**
 * One blocked caller, as small as it can be: its bundle, role, listener, deadline slot and
 * confirmation flags. It is its own wheel entry and tells its listener directly — waiting allocates no promise, closure or timer of its own.
 */
class Waiter implements Expiring, ParkedWait {
  confirming = false;
  overdue = false;
  slot = 0;

  constructor(
    readonly pendingId: string,
    readonly role: WaiterRole,
    private readonly store: WaiterStore,
    private listener: WaitListener | undefined,
  ) {}

  succeed(response: ClarificationResponse): void {
    const listener = this.end(true);
    listener?.answered(response);
  }

  fail(reason: WaitFailure): void {
    const listener = this.end(false);
    listener?.ended(reason);
  }

  /** Leaves the store; the listener, the first time only (a wait ends once). */
  private end(answered: boolean): WaitListener | undefined {
    const listener = this.listener;
    this.listener = undefined;
    this.store.release(this, answered);
    return listener;
  }

  abort(): void {
    this.fail(WaitFailure.Aborted);
  }

  /** The wait bound passed: ends the wait — unless a delivery is being confirmed, which decides instead. */
  expire(): void {
    if (this.confirming) this.overdue = true;
    else this.fail(WaitFailure.TimedOut);
  }
}

/**
 * The per-process registry of callers blocked on a bundle (an agent's ask, REST long polls). It holds
 * no bundle data — the durable rows are the authority — only who waits, so a blocked caller costs one
 * small record and a set entry; all their bounds share one timer. Several waiters may wait on one
 * bundle; one delivery wakes them all.
 */
@Injectable()
export class WaiterStore implements BeforeApplicationShutdown {
  /** A bundle's one waiter itself (the usual case: a set would cost more than the waiter), else a set of them. */
  private readonly waiting = new Map<string, Waiter | Set<Waiter>>();
  private readonly deadlines = new DeadlineWheel();
  private presence: WaiterPresence | undefined;

  observePresence(presence: WaiterPresence): void {
    this.presence = presence;
  }

  /** Parks a wait on the bundle: `listener` is told, once, how it ended; the handle ends it early. */
  park(pendingId: string, options: WaitOptions, listener: WaitListener): ParkedWait {
    const waiter = new Waiter(pendingId, options.role, this, listener);
    this.add(pendingId, waiter);
    this.deadlines.add(waiter, options.timeoutMs);
    return waiter;
  }

  hasAgent(pendingId: string): boolean {
    return this.waitersOf(pendingId).some((waiter) => waiter.role === WaiterRole.Agent);
  }

  waiterCount(pendingId: string): number {
    const waiting = this.waiting.get(pendingId);
    if (waiting === undefined) return 0;
    return waiting instanceof Set ? waiting.size : 1;
  }

  /** The bundles someone waits on here (re-checked after the database connection came back). */
  pendingIds(): string[] {
    return [...this.waiting.keys()];
  }

  /**
   * Delivery with confirmation: `confirm` (the durable finalize) runs once before any agent waiter is
   * handed the response. When it fails, the agents keep waiting (the claim is rolled back, so the
   * bundle is pending again and a later answer reaches them), unless their bound passed meanwhile.
   */
  async offer(pendingId: string, response: ClarificationResponse, confirm: () => Promise<void>): Promise<DeliveryOutcome> {
    const agents = this.waitersOf(pendingId).filter((waiter) => waiter.role === WaiterRole.Agent);
    if (agents.length === 0) return DeliveryOutcome.NoWaiter;
    agents.forEach((waiter) => (waiter.confirming = true));
    try {
      await confirm();
    } catch {
      for (const waiter of agents) {
        waiter.confirming = false;
        if (waiter.overdue) waiter.fail(WaitFailure.TimedOut);
      }
      return DeliveryOutcome.Failed;
    }
    agents.forEach((waiter) => waiter.succeed(response));
    return DeliveryOutcome.Delivered;
  }

  /** The answer is final: every remaining waiter of the bundle (observers, late agents) is told it. */
  settle(pendingId: string, response: ClarificationResponse): void {
    for (const waiter of this.waitersOf(pendingId)) if (!waiter.confirming) waiter.succeed(response);
  }

  /** The bundle is no longer active: its waiters (or only its agents) end with `reason`. */
  close(pendingId: string, reason: WaitFailure, role?: WaiterRole): void {
    for (const waiter of this.waitersOf(pendingId)) {
      if (!waiter.confirming && (role === undefined || waiter.role === role)) waiter.fail(reason);
    }
  }

  /**
   * Drain: wakes every waiter *before* the HTTP server closes. Nest closes the server before
   * `onApplicationShutdown`, and the server waits for in-flight requests, so draining any later would
   * hold the shutdown for as long as the longest wait bound.
   */
  beforeApplicationShutdown(): void {
    for (const pendingId of this.pendingIds()) this.close(pendingId, WaitFailure.ShuttingDown);
  }

  /** A waiter's wait ended: it leaves the registry and the wheel. */
  release(waiter: Waiter, answered: boolean): void {
    this.deadlines.remove(waiter);
    this.remove(waiter.pendingId, waiter, answered);
  }

  /** The bundle's waiters, as a copy: ending a wait changes the registry. */
  private waitersOf(pendingId: string): Waiter[] {
    const waiting = this.waiting.get(pendingId);
    if (waiting === undefined) return [];
    return waiting instanceof Set ? [...waiting] : [waiting];
  }

  private add(pendingId: string, waiter: Waiter): void {
    const firstAgent = waiter.role === WaiterRole.Agent && !this.hasAgent(pendingId);
    const waiting = this.waiting.get(pendingId);
    if (waiting === undefined) this.waiting.set(pendingId, waiter);
    else if (waiting instanceof Set) waiting.add(waiter);
    else this.waiting.set(pendingId, new Set([waiting, waiter]));
    if (firstAgent) this.presence?.occupied(pendingId);
  }

  /** An answered agent's presence went with the transaction that made the answer final; any other leaves it here. */
  private remove(pendingId: string, waiter: Waiter, answered: boolean): void {
    const waiting = this.waiting.get(pendingId);
    if (waiting === waiter) this.waiting.delete(pendingId);
    else if (waiting instanceof Set && waiting.delete(waiter)) {
      const [only, ...others] = waiting;
      if (only && others.length === 0) this.waiting.set(pendingId, only);
    } else return;
    if (!answered && waiter.role === WaiterRole.Agent && !this.hasAgent(pendingId)) this.presence?.vacated(pendingId);
  }
}
