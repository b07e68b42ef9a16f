import { DynamicModule, Module } from '@nestjs/common';
import { AuthorizationModule } from '../../../libs/authorization/src/index.js';
import { EventBusModule } from '../../../libs/common/src/index.js';
import { type AppConfig, ConfigModule } from '../../../libs/config/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { TasksModule } from '../../../libs/tasks/src/index.js';
import { WebhookManagementModule } from '../../../libs/webhooks/src/index.js';

/**
 * What the CLI needs: configuration, the database (migrations included), identities, workspaces and
 * webhook management —
 * nothing that acts on clarifications (the `questions:*` commands call the running server's REST API),
 * so the CLI never holds a process lease nor sweeps deliveries.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), EventBusModule, PersistenceModule, AuthorizationModule, TasksModule, WebhookManagementModule] };
  }
}
