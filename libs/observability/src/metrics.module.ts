import { Global, Module } from '@nestjs/common';
import { LifecycleEventSubscriber } from './lifecycle-event.subscriber.js';
import { ParleyMetrics } from './metrics.service.js';

/**
 * ParleyMetrics for any module that records an event (global: instrumentation needs no import), and
 * the subscriber that counts the event bus's lifecycle events into it.
 */
@Global()
@Module({ providers: [ParleyMetrics, LifecycleEventSubscriber], exports: [ParleyMetrics] })
export class MetricsModule {}
