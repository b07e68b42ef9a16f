import { Module } from '@nestjs/common';
import { ClarificationModule } from '#clarification';
import { MetricsController } from '#observability';
import { ActiveBundlesRepository } from './active-bundles.repository.js';
import { OperationalGauges } from './operational-gauges.js';

/** What an operator scrapes: /metrics and the gauges read from the running services. */
@Module({
  imports: [ClarificationModule],
  controllers: [MetricsController],
  providers: [ActiveBundlesRepository, OperationalGauges],
})
export class OperationsModule {}
