import { Global, Module } from '@nestjs/common';
import { ParleyMetrics } from './metrics.service.js';

/** ParleyMetrics for any module that records an event (global: instrumentation needs no import). */
@Global()
@Module({ providers: [ParleyMetrics], exports: [ParleyMetrics] })
export class MetricsModule {}
