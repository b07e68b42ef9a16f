import { EventEmitter } from 'node:events';
import { Injectable, Logger } from '@nestjs/common';

export interface ClarificationEventPayload {
  pending_id: string;
  session_id: string;
  task_id: string;
  [key: string]: unknown;
}

export interface SessionMessageUpdatedPayload {
  session_id: string;
  task_id: string;
  message_ids: string[];
}

/** Every event the in-process bus carries, by name. */
export interface ParleyEvents {
  'clarification.requested': ClarificationEventPayload;
  'clarification.primary_answered': ClarificationEventPayload;
  /** A routed bundle's quorum counted a new vote and is still open (a vote is no question event). */
  'clarification.voted': ClarificationEventPayload;
  'clarification.stale_dismissed': ClarificationEventPayload;
  'clarification.cancelled': ClarificationEventPayload;
  'clarification.expired': ClarificationEventPayload;
  'clarification.detached': ClarificationEventPayload;
  'clarification.superseded': ClarificationEventPayload;
  'session.message.updated': SessionMessageUpdatedPayload;
}

export type ParleyEventName = keyof ParleyEvents;

/** Each name once; a `Record` so the compiler fails when an event is added above and not here. */
const EVENT_NAMES: Record<ParleyEventName, true> = {
  'clarification.requested': true,
  'clarification.primary_answered': true,
  'clarification.voted': true,
  'clarification.stale_dismissed': true,
  'clarification.cancelled': true,
  'clarification.expired': true,
  'clarification.detached': true,
  'clarification.superseded': true,
  'session.message.updated': true,
};

/** Every event the bus carries, for a subscriber that watches them all. */
export const PARLEY_EVENT_NAMES = Object.keys(EVENT_NAMES) as readonly ParleyEventName[];

/** The in-process event bus. A failing subscriber is logged and never breaks the publisher. */
@Injectable()
export class EventBus {
  private readonly emitter = new EventEmitter({ captureRejections: false });
  private readonly logger = new Logger('EventBus');

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish<E extends ParleyEventName>(event: E, payload: ParleyEvents[E]): void {
    for (const listener of this.emitter.listeners(event)) {
      try {
        (listener as (payload: ParleyEvents[E]) => void)(payload);
      } catch (error) {
        this.logger.error({ msg: 'event subscriber failed', event, err: String(error) });
      }
    }
  }

  subscribe<E extends ParleyEventName>(event: E, listener: (payload: ParleyEvents[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }
}
