import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventBus, PARLEY_EVENT_NAMES, type ParleyEventName, type ParleyEvents } from '#common';
import { ParleyMetrics } from './metrics.service.js';

/**
 * Makes the in-process lifecycle events visible to an operator: each one is counted in
 * `parley_lifecycle_events_total` and logged at debug level by its ids. The answer itself is never
 * logged: it is the user's text.
 */
@Injectable()
export class LifecycleEventSubscriber implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('LifecycleEvents');
  private unsubscribe: Array<() => void> = [];

  constructor(
    private readonly bus: EventBus,
    private readonly metrics: ParleyMetrics,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = PARLEY_EVENT_NAMES.map((event) => this.bus.subscribe(event, (payload) => this.record(event, payload)));
  }

  onModuleDestroy(): void {
    this.unsubscribe.forEach((off) => off());
    this.unsubscribe = [];
  }

  private record(event: ParleyEventName, payload: ParleyEvents[ParleyEventName]): void {
    this.metrics.lifecycleEvent(event);
    this.logger.debug({
      msg: 'lifecycle event',
      event,
      ...('pending_id' in payload ? { pending_id: payload.pending_id } : {}),
      session_id: payload.session_id,
      task_id: payload.task_id,
    });
  }
}
