import { Field, Int, ObjectType } from '@nestjs/graphql';
import { PageInfoModel } from './pending-question.model.js';

@ObjectType('Webhook', { description: "An outbound webhook of a workspace (its owner's to manage)." })
export class WebhookModel {
  @Field() id!: string;
  @Field() workspaceId!: string;
  @Field() url!: string;
  @Field(() => [String], { description: 'asked, resolved, expired, detached' }) events!: string[];
  @Field({ description: 'json (signed Parley JSON) or slack (an incoming-webhook message)' }) format!: string;
  @Field({ description: 'active, or disabled (after repeated failures, or by its owner)' }) status!: string;
  @Field(() => Int) consecutiveFailures!: number;
  @Field(() => String, { nullable: true }) disabledReason!: string | null;
  @Field(() => String, { nullable: true }) disabledAt!: string | null;
  @Field() createdAt!: string;
  @Field() updatedAt!: string;
}

@ObjectType('CreatedWebhook')
export class CreatedWebhookModel {
  @Field(() => WebhookModel) webhook!: WebhookModel;
  @Field({ description: 'The signing secret: shown once, here' }) secret!: string;
}

@ObjectType('WebhookDelivery', { description: 'One event sent (or to be sent) to a webhook.' })
export class WebhookDeliveryModel {
  @Field({ description: 'Also the X-Parley-Delivery / Idempotency-Key header' }) id!: string;
  @Field({ description: 'The question event: ASKED, ANSWERED, REJECTED, EXPIRED, DETACHED' }) event!: string;
  @Field() eventId!: string;
  @Field() pendingId!: string;
  @Field({ description: 'pending, sending, delivered, failed or skipped' }) state!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true }) nextAttemptAt!: string | null;
  @Field(() => Int, { nullable: true }) lastStatusCode!: number | null;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field() createdAt!: string;
  @Field(() => String, { nullable: true }) finishedAt!: string | null;
}

@ObjectType('WebhookDeliveryConnection')
export class WebhookDeliveryConnectionModel {
  // Priced once, by the page size on webhookDeliveries.
  @Field(() => [WebhookDeliveryModel]) nodes!: WebhookDeliveryModel[];
  @Field(() => PageInfoModel) pageInfo!: PageInfoModel;
}
