import { type DynamicModule, Global, Module } from '@nestjs/common';
import { HostResolver } from './host.resolver.js';
import { OutboundClient } from './outbound.client.js';
import { OutboundPolicy } from './outbound.policy.js';
import { OUTBOUND_SETTINGS, type OutboundSettings } from './outbound.types.js';

/** The outbound target policy and the client every outbound call goes through, for the whole application. */
@Global()
@Module({})
export class OutboundModule {
  static forRoot(settings: OutboundSettings): DynamicModule {
    return {
      module: OutboundModule,
      providers: [{ provide: OUTBOUND_SETTINGS, useValue: settings }, HostResolver, OutboundPolicy, OutboundClient],
      exports: [HostResolver, OutboundPolicy, OutboundClient],
    };
  }
}
