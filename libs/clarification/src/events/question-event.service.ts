import { EventEmitter } from 'node:events';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AccessService, type Caller, CallerRevocations } from '#authorization';
import { ParleyMetrics } from '#observability';
import { DatabaseListener } from '#persistence';
import { BUNDLE_CHANNEL } from '../bundle/bundle-signal.channel.js';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { type QuestionEventRow, QuestionEventRepository } from './question-event.repository.js';
import { QuestionEventStream } from './question-event.stream.js';

export enum QuestionEventType {
  ASKED = 'ASKED',
  ANSWERED = 'ANSWERED',
  REJECTED = 'REJECTED',
  CANCELLED = 'CANCELLED',
  EXPIRED = 'EXPIRED',
  SUPERSEDED = 'SUPERSEDED',
  DETACHED = 'DETACHED',
  /** An escalation step reminded the eligible users of a routed bundle. */
  REMINDED = 'REMINDED',
  /** An escalation step replaced a routed bundle's eligible users. */
  ESCALATED = 'ESCALATED',
}

/** Events are kept this long; a cursor older than what was pruned must re-list. */
export const QUESTION_EVENT_RETENTION_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 10 * 60_000;
/** A fallback poll, for events whose NOTIFY was missed. */
const POLL_EVERY_MS = 1_000;
/** How soon to look again when committed events wait behind a transaction still in progress. */
const UNSETTLED_RETRY_MS = 15;
const BATCH = 100;

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
    // Revocation bites an open subscription: it ends when the caller's credential is revoked, or — scoped
    // to a workspace — when the caller's membership of it is removed. (An unscoped one keeps running; its
    // access check, made per batch, drops that workspace's events from then on.)
    const stopWatching = this.revocations.watch(caller, () => void stream.return(), workspaceId === undefined ? undefined : { workspaceId });
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
