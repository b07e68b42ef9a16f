import { Controller, Get, Header } from '@nestjs/common';
import { AdminOnly } from '#authorization';
import { ParleyMetrics } from './metrics.service.js';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors } from '#common';

/** Prometheus scrapes `/metrics` (the admin's token when auth is enabled; anyone may with auth disabled). */
@ApiTags('operations')
@ApiCaller()
@ApiErrors(404)
@AdminOnly()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: ParleyMetrics) {}

  @Get()
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition (prom-client)', schema: { type: 'string' } })
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.metrics();
  }
}
