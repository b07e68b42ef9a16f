import { Module } from '@nestjs/common';
import { WebhookManagementModule } from './webhook-management.module.js';
import { WebhookDispatcher } from './delivery/webhook.dispatcher.js';
import { WebhooksController } from './subscription/webhooks.controller.js';

/** Outbound webhooks in the server: management over REST, and the dispatcher that sends the outbox. */
@Module({
  imports: [WebhookManagementModule],
  controllers: [WebhooksController],
  providers: [WebhookDispatcher],
  exports: [WebhookManagementModule, WebhookDispatcher],
})
export class WebhooksModule {}
