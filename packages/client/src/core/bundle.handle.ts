import type { Outcome, ResumedOutcome } from './outcome.types.js';
import type { BundleView } from './wire.types.js';

/** What a handle asks of the client (the client implements it; kept here so the two files do not import each other). */
export interface BundleOperations {
  outcome(pendingId: string, options: { signal?: AbortSignal }): Promise<Outcome>;
  resume(pendingId: string, options: { signal?: AbortSignal }): Promise<ResumedOutcome>;
  get(pendingId: string, options: { signal?: AbortSignal }): Promise<BundleView>;
  cancel(pendingId: string, options: { signal?: AbortSignal }): Promise<void>;
}

/** One asked bundle, by its pending id: everything about it goes through the id, so a restarted process can rebuild it. */
export class BundleHandle {
  constructor(
    private readonly parley: BundleOperations,
    readonly pendingId: string,
    /** The session it was asked on, when this process asked it. */
    readonly sessionId?: string,
  ) {}

  /** Resolves with the bundle's one outcome; keeps waiting across restarts, failover and 503s until `signal` fires. */
  wait(options: { signal?: AbortSignal } = {}): Promise<Outcome> {
    return this.parley.outcome(this.pendingId, options);
  }

  /** `wait`, handing the outcome over once per ledger (see `Parley.resume`). */
  resume(options: { signal?: AbortSignal } = {}): Promise<ResumedOutcome> {
    return this.parley.resume(this.pendingId, options);
  }

  read(options: { signal?: AbortSignal } = {}): Promise<BundleView> {
    return this.parley.get(this.pendingId, options);
  }

  cancel(options: { signal?: AbortSignal } = {}): Promise<void> {
    return this.parley.cancel(this.pendingId, options);
  }
}
