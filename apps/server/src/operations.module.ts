import { Module } from '@nestjs/common';
import { ClarificationModule } from '../../../libs/clarification/src/index.js';
import { MetricsController } from '../../../libs/observability/src/index.js';
import { ActiveBundlesRepository } from './active-bundles.repository.js';
import { OperationalGauges } from './operational-gauges.js';

/** What an operator scrapes: /metrics and the gauges read from the running services. */
@Module({
  imports: [ClarificationModule],
  controllers: [MetricsController],
  providers: [ActiveBundlesRepository, OperationalGauges],
})
export class OperationsModule {}
