import { Logger } from '@nestjs/common';

/**
 * The process's one view of whether its database is reachable. The LISTEN connection's probe (see
 * DatabaseListener) and a pooled connection that could not be opened mark it unreachable; only the
 * listener marks it reachable again — a new connection of its own, or a probe sent after the mark —
 * so a false alarm lasts one probe round trip and a real outage lasts until the database answers.
 * While it is unreachable the pool refuses connections at once and gives up the ones it holds.
 */
export class DatabaseReachability {
  private readonly logger = new Logger('Database');
  private reachable = true;
  /** Counts the marks: a probe answer only clears the mark it was sent after. */
  private marks = 0;
  private readonly unreachableHandlers = new Set<() => void>();
  private readonly lostHandlers = new Set<() => void>();
  private lost = 0;
  private lastLostLogAt = 0;

  get isReachable(): boolean {
    return this.reachable;
  }

  /** Identifies the current mark, for `confirmedSince`. */
  get mark(): number {
    return this.marks;
  }

  markUnreachable(reason: unknown): void {
    this.marks += 1;
    if (!this.reachable) return;
    this.reachable = false;
    this.logger.warn({ msg: 'database unreachable', err: String(reason) });
    for (const handler of this.unreachableHandlers) {
      try {
        handler();
      } catch (error) {
        this.logger.error({ msg: 'database unreachable handler failed', err: String(error) });
      }
    }
  }

  /** A fresh connection answered: whatever marked the database unreachable is over. */
  markReachable(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.logger.log({ msg: 'database reachable' });
  }

  /** A probe sent at `mark` answered: reachable, unless something marked it unreachable since the probe was sent. */
  confirmedSince(mark: number): void {
    if (mark === this.marks) this.markReachable();
  }

  /** Connections (pooled or standalone) the database ended while the process was not using them, since start. */
  get lostConnections(): number {
    return this.lost;
  }

  /**
   * A connection the process was not using failed (an `error` event of an idle pooled client: the
   * server terminated it, restarted, failed over): counted, logged (at most once a second), and the
   * `onConnectionLost` handlers told — the listener probes at once, so a database that went away is
   * marked unreachable without waiting for the next probe. The connection itself is already discarded.
   */
  connectionLost(error: unknown): void {
    this.lost += 1;
    const now = Date.now();
    if (now - this.lastLostLogAt >= 1_000) {
      this.lastLostLogAt = now;
      this.logger.warn({ msg: 'idle database connection lost', lost: this.lost, err: String(error) });
    }
    for (const handler of this.lostHandlers) {
      try {
        handler();
      } catch (failure) {
        this.logger.error({ msg: 'connection lost handler failed', err: String(failure) });
      }
    }
  }

  /** Calls `handler` on each `connectionLost`; the returned function stops it. */
  onConnectionLost(handler: () => void): () => void {
    this.lostHandlers.add(handler);
    return () => this.lostHandlers.delete(handler);
  }

  /** Calls `handler` on each change from reachable to unreachable; the returned function stops it. */
  onUnreachable(handler: () => void): () => void {
    this.unreachableHandlers.add(handler);
    return () => this.unreachableHandlers.delete(handler);
  }
}
