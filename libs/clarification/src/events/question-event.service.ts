import { EventEmitter } from 'node:events';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AccessService, type Caller, CallerRevocations } from '#authorization';
import { ParleyMetrics } from '#observability';
import { DatabaseListener } from '#persistence';
import { BUNDLE_CHANNEL } from '../wait/bundle-signal.channel.js';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { type QuestionEventRow, QuestionEventRepository } from './question-event.repository.js';

export enum QuestionEventType {
  ASKED = 'ASKED',
  ANSWERED = 'ANSWERED',
  REJECTED = 'REJECTED',
  CANCELLED = 'CANCELLED',
  EXPIRED = 'EXPIRED',
  SUPERSEDED = 'SUPERSEDED',
  DETACHED = 'DETACHED',
}

/** Events are kept this long; a cursor older than what was pruned must re-list. */
export const QUESTION_EVENT_RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 10 * 60_000;
/** A fallback poll, for events whose NOTIFY was missed. */
const POLL_EVERY_MS = 1_000;
/** How soon to look again when committed events wait behind a transaction still in progress. */
const UNSETTLED_RETRY_MS = 15;
const BATCH = 100;
/** An access check that failed (the database away for a moment) is tried again, backing off, this long. */
const CHECK_RETRY_FIRST_MS = 100;
const CHECK_RETRY_LONGEST_MS = 2_000;
const CHECK_GIVE_UP_MS = 30_000;

/**
 * The durable question-event feed. Events are written by the transactions that make the changes they
 * report (so an event exists exactly when its change committed); this process follows the feed below
 * its settled horizon (see QuestionEventRepository) — woken by the NOTIFY those transactions send, with
 * a fallback poll, reading on the LISTEN connection itself while it is up (so the one reader never
 * queues behind requests for a pooled connection) — and hands each batch to the open subscriber
 * streams, which replay from their own cursor until they catch up, then take live batches. Access is
 * checked once per batch per stream; a check that fails is tried again, so a short outage only delays.
 */
@Injectable()
export class QuestionEventService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('QuestionEvents');
  private readonly live = new EventEmitter();
  private readonly openStreams = new Set<QuestionEventStream>();
  private timers: NodeJS.Timeout[] = [];
  private head = '0';
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly events: QuestionEventRepository,
    private readonly access: AccessService,
    private readonly revocations: CallerRevocations,
    private readonly listener: DatabaseListener,
    private readonly metrics: ParleyMetrics,
  ) {
    this.live.setMaxListeners(0);
  }

  async onModuleInit(): Promise<void> {
    this.head = await this.events.settledHead();
    await this.events.prune(new Date(Date.now() - QUESTION_EVENT_RETENTION_MS));
    this.listener.listen(BUNDLE_CHANNEL, () => this.poll());
    this.listener.onReconnect(() => this.poll());
    this.timers = [
      setInterval(() => this.poll(), POLL_EVERY_MS),
      setInterval(() => void this.events.prune(new Date(Date.now() - QUESTION_EVENT_RETENTION_MS)).catch(() => undefined), PRUNE_EVERY_MS),
    ];
    this.timers.forEach((timer) => timer.unref());
  }

  async onApplicationShutdown(): Promise<void> {
    this.timers.forEach((timer) => clearInterval(timer));
    clearTimeout(this.retry);
    await this.polling;
    await Promise.all([...this.openStreams].map((stream) => stream.return()));
  }

  /** Resolves once every event committed so far has been read and handed to the streams. */
  async flushed(): Promise<void> {
    for (;;) {
      this.poll();
      await this.polling;
      const { events, unsettled } = await this.events.listSettledAfter(this.head, undefined, 1);
      if (events.length === 0 && !unsettled) return;
      await new Promise((resolve) => setTimeout(resolve, UNSETTLED_RETRY_MS));
    }
  }

  /** How many subscriber streams are open: a stream counts from the moment a live event can reach it. */
  openStreamCount(): number {
    return this.openStreams.size;
  }

  /** Reads what settled after the head (one reader per process) and hands it to the live streams. */
  private poll(): void {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.readNew()
      .catch((error: unknown) => this.logger.warn({ msg: 'event feed not read', err: String(error) }))
      .finally(() => {
        this.polling = undefined;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.poll();
        }
      });
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const { events, unsettled } = await this.events.listSettledAfter(this.head, undefined, BATCH, this.listener.connection);
      if (events.length > 0) {
        this.head = (events[events.length - 1]).id;
        this.live.emit('batch', events);
        this.metrics.eventsDispatched(events.map((event) => event.created_at));
      }
      if (events.length === BATCH) continue;
      if (unsettled && !this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.poll();
        }, UNSETTLED_RETRY_MS);
        this.retry.unref();
      }
      return;
    }
  }

  /**
   * Where the feed stands now, as a cursor: a subscription with `after` = it gets every event from here
   * on. Read before listing, it closes the gap between a list and a subscription opened after it.
   */
  position(): Promise<string> {
    return this.events.settledHead();
  }

  /**
   * Every event after `after` the caller may see, then live ones (only live ones without a cursor).
   * A cursor older than the retention watermark is refused: the caller must re-list.
   */
  async open(caller: Caller, options: { workspaceId?: string; after?: string }): Promise<AsyncIterableIterator<QuestionEventRow>> {
    const start = await this.startingPoint(options.after);
    const workspaceId = options.workspaceId || undefined;
    const stream: QuestionEventStream = new QuestionEventStream(start, {
      replay: async (after) => (await this.events.listSettledAfter(after, workspaceId, BATCH)).events,
      head: () => this.head,
      visible: (batch) => this.visibleTo(caller, batch),
      inScope: (event) => workspaceId === undefined || event.workspace_id === workspaceId,
      live: this.live,
      closed: () => {
        stopWatching();
        this.openStreams.delete(stream);
      },
    });
    // Revocation bites an open subscription: it ends when the caller's credential is revoked.
    const stopWatching = this.revocations.watch(caller, () => void stream.return());
    this.openStreams.add(stream);
    return stream;
  }

  /** The events of a batch the caller may see: one set-based access check per batch. */
  private async visibleTo(caller: Caller, batch: QuestionEventRow[]): Promise<QuestionEventRow[]> {
    try {
      const allowed = await this.access.accessibleTaskIds(caller, [...new Set(batch.map((event) => event.task_id))]);
      return batch.filter((event) => allowed.has(event.task_id));
    } catch (error) {
      this.logger.warn({ msg: 'subscriber access check failed', err: String(error) });
      throw error;
    }
  }

  private async startingPoint(after: string | undefined): Promise<string> {
    if (after === undefined || after === '') return this.events.settledHead();
    if (!/^\d{1,19}$/.test(after) || BigInt(after) > 2n ** 63n - 1n) throw ClarificationError.validation('after must be an event id');
    if (BigInt(after) < BigInt(await this.events.prunedThrough())) {
      throw ClarificationError.validation('after is older than the event retention; re-list pending questions and subscribe without after');
    }
    return after;
  }
}

interface StreamSource {
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
class QuestionEventStream implements AsyncIterableIterator<QuestionEventRow> {
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
