import { UseInterceptors } from '@nestjs/common';
import { Args, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { LIST_PAGE } from '#common';
import {
  type DeliveryView,
  MAX_SUBSCRIPTIONS_PER_WORKSPACE,
  type SubscriptionView,
  WebhookSubscriptionService,
} from '#webhooks';
import { GqlCaller } from '../graphql-caller.js';
import { pageInfo } from './graphql.mappers.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { CreatedWebhookModel, WebhookDeliveryConnectionModel, type WebhookDeliveryModel, WebhookModel } from '../models/webhook.model.js';
import { LIST_PAGE_COST, listCost } from '../limits/operation-cost.js';

function webhookModel(view: SubscriptionView): WebhookModel {
  return {
    id: view.id,
    workspaceId: view.workspace_id,
    url: view.url,
    events: view.events,
    format: view.format,
    status: view.status,
    consecutiveFailures: view.consecutive_failures,
    disabledReason: view.disabled_reason,
    disabledAt: view.disabled_at,
    createdAt: view.created_at,
    updatedAt: view.updated_at,
  };
}

function deliveryModel(view: DeliveryView): WebhookDeliveryModel {
  return {
    id: view.id,
    event: view.event,
    eventId: view.event_id,
    pendingId: view.pending_id,
    state: view.state,
    attempts: view.attempts,
    nextAttemptAt: view.next_attempt_at,
    lastStatusCode: view.last_status_code,
    lastError: view.last_error,
    createdAt: view.created_at,
    finishedAt: view.finished_at,
  };
}

/** Outbound webhooks over GraphQL: the same service and owner-only rule as REST. */
@Resolver(() => WebhookModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class WebhooksResolver {
  constructor(private readonly subscriptions: WebhookSubscriptionService) {}

  @Query(() => [WebhookModel], { description: "A workspace's webhooks (its owner or an admin)", complexity: listCost(MAX_SUBSCRIPTIONS_PER_WORKSPACE) })
  async webhooks(@GqlCaller() caller: Caller, @Args('workspaceId') workspaceId: string): Promise<WebhookModel[]> {
    return (await this.subscriptions.list(caller, workspaceId)).map(webhookModel);
  }

  @Query(() => WebhookDeliveryConnectionModel, {
    description: "A webhook's delivery log, newest first",
    complexity: LIST_PAGE_COST,
  })
  async webhookDeliveries(
    @GqlCaller() caller: Caller,
    @Args('webhookId') webhookId: string,
    @Args('after', { nullable: true }) after?: string,
    @Args('first', { type: () => Int, nullable: true, description: `default ${LIST_PAGE.defaultLimit}, at most ${LIST_PAGE.maxLimit}` }) first?: number,
  ): Promise<WebhookDeliveryConnectionModel> {
    const page = await this.subscriptions.deliveryLog(caller, webhookId, { cursor: after, limit: first });
    return { nodes: page.deliveries.map(deliveryModel), pageInfo: pageInfo(page.next_cursor) };
  }

  @Mutation(() => CreatedWebhookModel, { description: 'Subscribe a URL to question events of a workspace' })
  async createWebhook(
    @GqlCaller() caller: Caller,
    @Args('workspaceId') workspaceId: string,
    @Args('url') url: string,
    @Args('events', { type: () => [String], description: 'asked, resolved, expired, detached' }) events: string[],
    @Args('format', { nullable: true, description: 'json (default) or slack' }) format?: string,
    @Args('secret', { nullable: true, description: 'At least 16 characters; generated when absent' }) secret?: string,
  ): Promise<CreatedWebhookModel> {
    const created = await this.subscriptions.create(caller, workspaceId, { url, events, format, secret });
    return { webhook: webhookModel(created), secret: created.secret };
  }

  @Mutation(() => WebhookModel, { description: 'Change a webhook; enabled: true re-enables a disabled one' })
  async updateWebhook(
    @GqlCaller() caller: Caller,
    @Args('id') id: string,
    @Args('url', { nullable: true }) url?: string,
    @Args('events', { type: () => [String], nullable: true }) events?: string[],
    @Args('format', { nullable: true }) format?: string,
    @Args('enabled', { nullable: true }) enabled?: boolean,
  ): Promise<WebhookModel> {
    return webhookModel(await this.subscriptions.update(caller, id, { url, events, format, enabled }));
  }

  @Mutation(() => Boolean, { description: 'Delete a webhook and its delivery log' })
  async deleteWebhook(@GqlCaller() caller: Caller, @Args('id') id: string): Promise<boolean> {
    await this.subscriptions.delete(caller, id);
    return true;
  }
}
