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

  /** Calls `handler` on each change from reachable to unreachable; the returned function stops it. */
  onUnreachable(handler: () => void): () => void {
    this.unreachableHandlers.add(handler);
    return () => this.unreachableHandlers.delete(handler);
  }
}
