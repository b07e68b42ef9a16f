import { Module } from '@nestjs/common';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { WebhookSubscriptionService } from './webhook-subscription.service.js';

/** Managing subscriptions and reading their delivery log — no sending (what the CLI needs). */
@Module({
  providers: [WebhookSubscriptionRepository, WebhookDeliveryRepository, WebhookSubscriptionService],
  exports: [WebhookSubscriptionService, WebhookDeliveryRepository],
})
export class WebhookManagementModule {}
