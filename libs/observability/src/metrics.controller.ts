import { Controller, Get, Header } from '@nestjs/common';
import { AdminOnly } from '../../authorization/src/index.js';
import { ParleyMetrics } from './metrics.service.js';

/** Prometheus scrapes `/metrics` (the admin's token when auth is enabled; anyone may with auth disabled). */
@AdminOnly()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: ParleyMetrics) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.metrics();
  }
}
