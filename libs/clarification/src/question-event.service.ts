import { EventEmitter } from 'node:events';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AccessService, type Caller } from '../../authorization/src/index.js';
import { type ClarificationEventPayload, EventBus, type ParleyEventName } from '../../common/src/index.js';
import { ClarificationError } from './clarification.errors.js';
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
/** How often the shared poller looks for events appended by other replicas. */
const POLL_EVERY_MS = 1_000;
const BATCH = 100;

type RecordedEvent = Extract<
  ParleyEventName,
  | 'clarification.requested'
  | 'clarification.primary_answered'
  | 'clarification.stale_dismissed'
  | 'clarification.cancelled'
  | 'clarification.expired'
  | 'clarification.superseded'
  | 'clarification.detached'
>;

function typeOf(event: RecordedEvent, payload: ClarificationEventPayload): QuestionEventType {
  switch (event) {
    case 'clarification.requested':
      return QuestionEventType.ASKED;
    case 'clarification.primary_answered':
      return (payload.response as { rejected?: boolean } | undefined)?.rejected ? QuestionEventType.REJECTED : QuestionEventType.ANSWERED;
    case 'clarification.stale_dismissed':
      return QuestionEventType.REJECTED;
    case 'clarification.cancelled':
      return QuestionEventType.CANCELLED;
    case 'clarification.expired':
      return QuestionEventType.EXPIRED;
    case 'clarification.superseded':
      return QuestionEventType.SUPERSEDED;
    case 'clarification.detached':
      return QuestionEventType.DETACHED;
    default: {
      const unhandled: never = event;
      throw new Error(`unrecorded event ${String(unhandled)}`);
    }
  }
}

const RECORDED: RecordedEvent[] = [
  'clarification.requested',
  'clarification.primary_answered',
  'clarification.stale_dismissed',
  'clarification.cancelled',
  'clarification.expired',
  'clarification.superseded',
  'clarification.detached',
];

/**
 * The durable question-event feed: bus events are appended in order to `question_events`; a
 * subscriber's stream replays everything after its cursor, then follows live appends (its own
 * replica's at once, other replicas' through a shared poller), checking access per event.
 */
@Injectable()
export class QuestionEventService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('QuestionEvents');
  private readonly appended = new EventEmitter();
  private appending: Promise<unknown> = Promise.resolve();
  private unsubscribe: (() => void)[] = [];
  private timers: NodeJS.Timeout[] = [];
  private latestSeen = '0';
  private readonly openStreams = new Set<QuestionEventStream>();

  constructor(
    private readonly events: QuestionEventRepository,
    private readonly bus: EventBus,
    private readonly access: AccessService,
  ) {
    this.appended.setMaxListeners(0);
  }

  async onModuleInit(): Promise<void> {
    this.unsubscribe = RECORDED.map((name) => this.bus.subscribe(name, (payload) => this.record(name, payload)));
    this.latestSeen = await this.events.latestId();
    await this.events.prune(new Date(Date.now() - QUESTION_EVENT_RETENTION_MS));
    this.timers = [
      setInterval(() => void this.pollForeignAppends(), POLL_EVERY_MS),
      setInterval(() => void this.events.prune(new Date(Date.now() - QUESTION_EVENT_RETENTION_MS)).catch(() => undefined), PRUNE_EVERY_MS),
    ];
    this.timers.forEach((timer) => timer.unref());
  }

  async onApplicationShutdown(): Promise<void> {
    this.unsubscribe.forEach((stop) => stop());
    this.timers.forEach((timer) => clearInterval(timer));
    await this.appending;
    await Promise.all([...this.openStreams].map((stream) => stream.return()));
  }

  /** Resolves once every event published so far is durable (for tests and orderly shutdown). */
  flushed(): Promise<unknown> {
    return this.appending;
  }

  private record(name: RecordedEvent, payload: ClarificationEventPayload): void {
    const { pending_id: pendingId, session_id: sessionId, task_id: taskId, ...rest } = payload;
    this.appending = this.appending
      .then(() => this.events.append({ type: typeOf(name, payload), pendingId, sessionId, taskId, payload: rest }))
      .then((row) => this.noteLatest(row.id))
      .catch((error: unknown) => this.logger.error({ msg: 'question event not recorded', pending_id: pendingId, err: String(error) }));
  }

  private noteLatest(id: string): void {
    if (BigInt(id) <= BigInt(this.latestSeen)) return;
    this.latestSeen = id;
    this.appended.emit('wake');
  }

  private async pollForeignAppends(): Promise<void> {
    try {
      this.noteLatest(await this.events.latestId());
    } catch {
      // the database is unreachable for a moment: streams keep their position and retry
    }
  }

  /**
   * Every event after `after` the caller may see, then live ones (only live ones without a
   * cursor). A cursor older than the retention watermark is refused: the caller must re-list.
   */
  async open(caller: Caller, options: { workspaceId?: string; after?: string }): Promise<AsyncIterableIterator<QuestionEventRow>> {
    const start = await this.startingPoint(options.after);
    const stream = new QuestionEventStream(start, options.workspaceId || undefined, {
      fetch: (after, workspaceId) => this.events.listAfter(after, workspaceId, BATCH),
      visible: (event) => this.access.authorizeTaskAccess(caller, event.task_id),
      wakes: this.appended,
      closed: () => this.openStreams.delete(stream),
    });
    this.openStreams.add(stream);
    return stream;
  }

  private async startingPoint(after: string | undefined): Promise<string> {
    if (after === undefined || after === '') return this.events.latestId();
    if (!/^\d{1,18}$/.test(after)) throw ClarificationError.validation('after must be an event id');
    if (BigInt(after) < BigInt(await this.events.prunedThrough())) {
      throw ClarificationError.validation('after is older than the event retention; re-list pending questions and subscribe without after');
    }
    return after;
  }
}

interface StreamSource {
  fetch(after: string, workspaceId: string | undefined): Promise<QuestionEventRow[]>;
  visible(event: QuestionEventRow): Promise<boolean>;
  wakes: EventEmitter;
  closed(): void;
}

/** One subscriber's cursor over the feed; `return()` ends it at once, even while it waits. */
class QuestionEventStream implements AsyncIterableIterator<QuestionEventRow> {
  private readonly buffered: QuestionEventRow[] = [];
  private closed = false;
  private wakeWaiter: (() => void) | undefined;

  constructor(
    private last: string,
    private readonly workspaceId: string | undefined,
    private readonly source: StreamSource,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<QuestionEventRow> {
    return this;
  }

  async next(): Promise<IteratorResult<QuestionEventRow>> {
    while (!this.closed) {
      const event = this.buffered.shift();
      if (event) return { value: event, done: false };
      const wake = this.nextWake();
      const batch = await this.source.fetch(this.last, this.workspaceId);
      for (const row of batch) {
        this.last = row.id;
        if (await this.source.visible(row)) this.buffered.push(row);
      }
      if (batch.length < BATCH && this.buffered.length === 0) await wake;
    }
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<QuestionEventRow>> {
    this.closed = true;
    this.wakeWaiter?.();
    this.source.closed();
    return { value: undefined, done: true };
  }

  private nextWake(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.source.wakes.off('wake', done);
        this.wakeWaiter = undefined;
        resolve();
      };
      this.wakeWaiter = done;
      this.source.wakes.once('wake', done);
    });
  }
}
