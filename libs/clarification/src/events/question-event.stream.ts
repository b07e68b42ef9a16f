import type { EventEmitter } from 'node:events';
import type { QuestionEventRow } from './question-event.repository.js';

/** An access check that failed (the database away for a moment) is tried again, backing off, this long. */
const CHECK_RETRY_FIRST_MS = 100;
const CHECK_RETRY_LONGEST_MS = 2_000;
const CHECK_GIVE_UP_MS = 30_000;

/** What a stream reads from: the feed's replay and live batches, and the caller's access and scope. */
export interface StreamSource {
  replay(after: string): Promise<QuestionEventRow[]>;
  head(): string;
  visible(batch: QuestionEventRow[]): Promise<QuestionEventRow[]>;
  inScope(event: QuestionEventRow): boolean;
  live: EventEmitter;
  closed(): void;
}

/**
 * One subscriber's cursor over the feed: replays from its cursor until it reaches the process's head,
 * then takes the live batches (queued while it is busy). `return()` ends it at once, even while it waits.
 */
export class QuestionEventStream implements AsyncIterableIterator<QuestionEventRow> {
  private readonly buffered: QuestionEventRow[] = [];
  private readonly pendingBatches: QuestionEventRow[][] = [];
  private replaying = true;
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly onBatch = (batch: QuestionEventRow[]) => {
    this.pendingBatches.push(batch);
    this.wake?.();
  };

  constructor(
    private last: string,
    private readonly source: StreamSource,
  ) {
    source.live.on('batch', this.onBatch);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<QuestionEventRow> {
    return this;
  }

  async next(): Promise<IteratorResult<QuestionEventRow>> {
    while (!this.closed) {
      const event = this.buffered.shift();
      if (event) return { value: event, done: false };
      if (this.replaying) await this.replayBatch();
      // Every batch that queued meanwhile, at once: one access check for all of them, so a stream that
      // falls behind catches up instead of paying a check per small batch.
      else if (this.pendingBatches.length > 0) await this.accept(this.pendingBatches.splice(0).flat());
      else await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
    return { value: undefined, done: true };
  }

  return(): Promise<IteratorResult<QuestionEventRow>> {
    this.closed = true;
    this.source.live.off('batch', this.onBatch);
    this.wake?.();
    this.source.closed();
    return Promise.resolve({ value: undefined, done: true });
  }

  private async replayBatch(): Promise<void> {
    if (BigInt(this.last) >= BigInt(this.source.head())) {
      this.replaying = false;
      return;
    }
    const batch = await this.source.replay(this.last);
    if (batch.length === 0) {
      this.replaying = false;
      return;
    }
    await this.accept(batch, false);
  }

  /** Takes the events after the cursor (live batches may overlap what replay already read). */
  private async accept(batch: QuestionEventRow[], filterScope = true): Promise<void> {
    const fresh = batch.filter((event) => BigInt(event.id) > BigInt(this.last) && (!filterScope || this.source.inScope(event)));
    const visible = fresh.length > 0 ? await this.checked(fresh) : [];
    const newest = batch[batch.length - 1];
    if (newest && BigInt(newest.id) > BigInt(this.last)) this.last = newest.id;
    this.buffered.push(...visible);
  }

  /**
   * The access check, tried again while it fails for up to CHECK_GIVE_UP_MS: a database away for a
   * moment delays the stream instead of ending it. Past that the stream ends with the error, its
   * cursor still before these events, so a client resuming from its last id misses none of them.
   */
  private async checked(events: QuestionEventRow[]): Promise<QuestionEventRow[]> {
    const giveUpAt = Date.now() + CHECK_GIVE_UP_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.source.visible(events);
      } catch (error) {
        if (this.closed) return [];
        if (Date.now() >= giveUpAt) throw error;
        await this.pause(Math.min(CHECK_RETRY_LONGEST_MS, CHECK_RETRY_FIRST_MS * 2 ** attempt));
      }
    }
  }

  /** Waits `ms`, or less when the stream is woken (a new batch, or closed). */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
