import { DynamicModule, Module } from '@nestjs/common';
import { AuthorizationModule } from '../../../libs/authorization/src/index.js';
import { type AppConfig, ConfigModule } from '../../../libs/config/src/index.js';
import { PersistenceModule } from '../../../libs/persistence/src/index.js';

/**
 * What the CLI needs — configuration, the database (migrations included) and identities — and
 * nothing that acts on clarifications: running a command never touches a delivery in flight.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), PersistenceModule, AuthorizationModule] };
  }
}
