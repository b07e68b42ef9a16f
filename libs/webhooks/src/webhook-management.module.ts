import { Module } from '@nestjs/common';
import { WebhookDeliveryRepository } from './delivery/webhook-delivery.repository.js';
import { WebhookSubscriptionRepository } from './subscription/webhook-subscription.repository.js';
import { WebhookSubscriptionService } from './subscription/webhook-subscription.service.js';

/** Managing subscriptions and reading their delivery log — no sending (what the CLI needs). */
@Module({
  providers: [WebhookSubscriptionRepository, WebhookDeliveryRepository, WebhookSubscriptionService],
  exports: [WebhookSubscriptionService, WebhookDeliveryRepository],
})
export class WebhookManagementModule {}
