import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuthorizationModule } from '../../../libs/authorization/src/index.js';
import { ClarificationModule } from '../../../libs/clarification/src/index.js';
import { EventBusModule } from '../../../libs/common/src/index.js';
import { type AppConfig, ConfigModule } from '../../../libs/config/src/index.js';
import { DecisionsModule } from '../../../libs/decisions/src/index.js';
import { ParleyGraphqlModule } from '../../../libs/graphql/src/index.js';
import { McpModule } from '../../../libs/mcp/src/index.js';
import { LoggingModule, MetricsModule } from '../../../libs/observability/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { RateLimitModule } from '../../../libs/rate-limit/src/index.js';
import { TasksModule } from '../../../libs/tasks/src/index.js';
import { WebhooksModule } from '../../../libs/webhooks/src/index.js';
import { OperationsModule } from './operations.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        MetricsModule,
        EventBusModule,
        RateLimitModule,
        PersistenceModule,
        AuthorizationModule,
        TasksModule,
        ClarificationModule,
        DecisionsModule,
        WebhooksModule,
        McpModule,
        ParleyGraphqlModule,
        OperationsModule,
      ],
    };
  }
}
