import { DynamicModule, Module } from '@nestjs/common';
import { AuthorizationModule } from '#authorization';
import { ChatManagementModule } from '#channels';
import { type AppConfig, ConfigModule } from '#config';
import { OutboundModule } from '#outbound';
import { PersistenceModule } from '#persistence';
import { ReceiptsModule } from '#receipts';
import { TasksModule } from '#tasks';
import { WebhookManagementModule } from '#webhooks';

/**
 * What the CLI needs: configuration, the database (migrations included), identities, workspaces,
 * webhook management, chat account links and destinations, and the receipt keys —
 * nothing that acts on clarifications (the `questions:*` commands call the running server's REST API),
 * so the CLI never holds a process lease nor sweeps deliveries.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), OutboundModule.forRoot(config.outbound), PersistenceModule, AuthorizationModule, TasksModule, WebhookManagementModule, ChatManagementModule, ReceiptsModule] };
  }
}
