import { DynamicModule, Module } from '@nestjs/common';
import { AuthorizationModule } from '../../../libs/authorization/src/index.js';
import { type AppConfig, ConfigModule } from '../../../libs/config/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';
import { WebhookManagementModule } from '../../../libs/webhooks/src/index.js';

/**
 * What the CLI needs — configuration, the database (migrations included), identities and webhook
 * management — and nothing that acts on clarifications or sends webhooks: running a command never
 * touches a delivery in flight.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), PersistenceModule, AuthorizationModule, WebhookManagementModule] };
  }
}
