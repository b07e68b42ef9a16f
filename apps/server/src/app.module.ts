import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuthorizationModule } from '#authorization';
import { ChannelsModule } from '#channels';
import { ClarificationModule } from '#clarification';
import { type AppConfig, ConfigModule } from '#config';
import { DecisionsModule } from '#decisions';
import { ParleyGraphqlModule } from '#graphql';
import { McpModule } from '#mcp';
import { LoggingModule, MetricsModule } from '#observability';
import { OutboundModule } from '#outbound';
import { PersistenceModule } from '#persistence';
import { RateLimitModule } from '#rate-limit';
import { ReceiptsModule } from '#receipts';
import { TasksModule } from '#tasks';
import { WebhooksModule } from '#webhooks';
import { OperationsModule } from './operations/operations.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        OutboundModule.forRoot(config.outbound),
        LoggingModule.forRoot(logger),
        MetricsModule,
        RateLimitModule,
        PersistenceModule,
        ReceiptsModule,
        AuthorizationModule,
        TasksModule,
        ClarificationModule,
        DecisionsModule,
        WebhooksModule,
        ChannelsModule,
        McpModule,
        ParleyGraphqlModule,
        OperationsModule,
      ],
    };
  }
}
