import { Injectable, Logger } from '@nestjs/common';
import { ParleyMetrics } from '#observability';
import type { BundleSignalKind } from '../bundle/bundle-signal.channel.js';

/** The signals that end a bundle without an answer: each is also the question event the change wrote. */
export type EndingSignal = Extract<BundleSignalKind, 'expired' | 'cancelled' | 'detached' | 'superseded'>;

const ENDINGS: readonly EndingSignal[] = ['cancelled', 'expired', 'detached', 'superseded'];
const ASKED = 'clarification.requested';
const DELIVERED = 'clarification.primary_answered';
const DISMISSED = 'clarification.stale_dismissed';
const VOTED = 'clarification.voted';
const MESSAGES_CHANGED = 'session.message.updated';

interface BundleIds {
  pending_id: string;
  session_id: string;
  task_id: string;
}

/**
 * Makes the changes this process commits visible to an operator: each is counted in
 * `parley_lifecycle_events_total` (label values kept from the metric's first release) and logged at
 * debug level by its ids, never the answer (the user's text). Counted by the process that committed
 * the change, right after the commit — never on receiving a question event or a signal, which every
 * replica reads — so each change is counted once across the replicas.
 */
@Injectable()
export class LifecycleEventCounter {
  private readonly logger = new Logger('LifecycleEvents');

  constructor(private readonly metrics: ParleyMetrics) {
    // Every series from the start, at 0: a rate over a series that appears only with its first event misses that event.
    metrics.lifecycleEventsKnown([ASKED, DELIVERED, VOTED, DISMISSED, ...ENDINGS.map(endingEvent), MESSAGES_CHANGED]);
  }

  /** A bundle was asked (its ASKED event written), its messages added to the session. */
  asked(bundle: BundleIds, messageIds: readonly string[]): void {
    this.count(ASKED, bundle, messageIds);
  }

  /** A routed bundle counted a new vote and stays open (the `voted` signal). */
  voted(bundle: BundleIds): void {
    this.count(VOTED, bundle, []);
  }

  /** The answer is final (`settled`): handed to the agent — or, a rejection nobody waited for, dismissed. */
  settled(bundle: BundleIds, messageIds: readonly string[], dismissed: boolean): void {
    this.count(dismissed ? DISMISSED : DELIVERED, bundle, messageIds);
  }

  /** The bundle ended unanswered; `messageIds` are the messages the change rewrote (none when it only left the index). */
  ended(signal: EndingSignal, bundle: BundleIds, messageIds: readonly string[]): void {
    this.count(endingEvent(signal), bundle, messageIds);
  }

  private count(event: string, bundle: BundleIds, messageIds: readonly string[]): void {
    this.record(event, bundle);
    if (messageIds.length > 0) this.record(MESSAGES_CHANGED, bundle);
  }

  private record(event: string, { pending_id, session_id, task_id }: BundleIds): void {
    this.metrics.lifecycleEvent(event);
    this.logger.debug({ msg: 'lifecycle event', event, pending_id, session_id, task_id });
  }
}

function endingEvent(signal: EndingSignal): string {
  return `clarification.${signal}`;
}
