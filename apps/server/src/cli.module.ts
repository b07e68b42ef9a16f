import { DynamicModule, Module } from '@nestjs/common';
import { AuthorizationModule } from '../../../libs/authorization/src/index.js';
import { ClarificationModule } from '../../../libs/clarification/src/index.js';
import { EventBusModule } from '../../../libs/common/src/index.js';
import { type AppConfig, ConfigModule } from '../../../libs/config/src/index.js';
import { MetricsModule } from '../../../libs/observability/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { TasksModule } from '../../../libs/tasks/src/index.js';

/**
 * What the CLI needs. Identity and workspace commands get configuration, the database (migrations
 * included), identities and workspaces — nothing that acts on clarifications, so running one never
 * touches a delivery in flight. Only `questions:*` commands add the clarification core: answering
 * goes through the one resolution path (ResolveBundle), whose module starts a DeliverySweeper at
 * bootstrap; it recovers orphaned claims only (their owner's lease expired), never a live process's.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig, options: { clarification: boolean }): DynamicModule {
    const base = [ConfigModule.forRoot(config), EventBusModule, MetricsModule, PersistenceModule, AuthorizationModule, TasksModule];
    return { module: CliModule, imports: options.clarification ? [...base, ClarificationModule] : base };
  }
}
