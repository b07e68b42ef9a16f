import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DatabaseListener } from '#persistence';
import { BUNDLE_CHANNEL, type BundleSignal, parseBundleSignal } from '../bundle/bundle-signal.channel.js';

export interface PendingChange {
  /** Resolves true at the bundle's next signal, false when the bound passed first. */
  changed: Promise<boolean>;
  /** Whether the signal came already (synchronously known). */
  fired(): boolean;
  cancel(): void;
}

/**
 * Changes of a bundle's fate, from this process (dispatched as soon as its transaction committed)
 * and from every process (the NOTIFY each such transaction sends, which this process receives too —
 * handlers are idempotent). Waiters, losers awaiting a winner's outcome, and the process holding an
 * agent's wait all learn here what happened, whichever replica made it happen.
 */
@Injectable()
export class BundleSignals implements OnModuleInit {
  private readonly handlers = new Set<(signal: BundleSignal) => void>();
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(private readonly listener: DatabaseListener) {}

  onModuleInit(): void {
    this.listener.listen(BUNDLE_CHANNEL, (payload) => {
      const signal = parseBundleSignal(payload);
      if (signal) this.dispatch(signal);
    });
  }

  subscribe(handler: (signal: BundleSignal) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** Runs `handler` when the database connection came back (signals may have been missed meanwhile). */
  onReconnect(handler: () => void): void {
    this.listener.onReconnect(handler);
  }

  dispatch(signal: BundleSignal): void {
    // A hand-off to another process, or a vote that left the bundle open, is no change of the bundle's fate: its watchers wait on.
    const watchers = signal.kind === 'deliver' || signal.kind === 'voted' ? undefined : this.watchers.get(signal.pending_id);
    if (watchers) {
      this.watchers.delete(signal.pending_id);
      watchers.forEach((wake) => wake());
    }
    this.handlers.forEach((handler) => handler(signal));
  }

  /** Watch for the bundle's next signal; start watching before reading its state, so none is missed. */
  nextChange(pendingId: string, withinMs: number): PendingChange {
    let wake!: () => void;
    let timer: NodeJS.Timeout | undefined;
    let fired = false;
    const changed = new Promise<boolean>((resolve) => {
      wake = () => {
        fired = true;
        clearTimeout(timer);
        resolve(true);
      };
      timer = setTimeout(() => {
        this.unwatch(pendingId, wake);
        resolve(false);
      }, withinMs);
    });
    let watchers = this.watchers.get(pendingId);
    if (!watchers) {
      watchers = new Set();
      this.watchers.set(pendingId, watchers);
    }
    watchers.add(wake);
    return {
      changed,
      fired: () => fired,
      cancel: () => {
        clearTimeout(timer);
        this.unwatch(pendingId, wake);
      },
    };
  }

  private unwatch(pendingId: string, wake: () => void): void {
    const watchers = this.watchers.get(pendingId);
    if (watchers?.delete(wake) && watchers.size === 0) this.watchers.delete(pendingId);
  }
}
