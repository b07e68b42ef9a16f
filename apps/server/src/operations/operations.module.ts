import { Module } from '@nestjs/common';
import { ClarificationModule } from '#clarification';
import { MetricsController } from '#observability';
import { OperationalGauges } from './operational-gauges.js';

/** What an operator scrapes: /metrics and the gauges read from the running services. */
@Module({
  imports: [ClarificationModule],
  controllers: [MetricsController],
  providers: [OperationalGauges],
})
export class OperationsModule {}
