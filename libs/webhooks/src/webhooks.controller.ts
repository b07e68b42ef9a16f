import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { type Caller, CurrentCaller } from '../../authorization/src/index.js';
import { RateLimited, RateLimitKind } from '../../rate-limit/src/index.js';
import { WebhookSubscriptionService } from './webhook-subscription.service.js';
import { CreateWebhookDto, DeliveryLogQueryDto, UpdateWebhookDto } from './webhooks.dto.js';

/** Outbound webhooks of a workspace (issue 15): its owner's (or an admin's) to manage; anyone else gets 404. */
@Controller('api/v1')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookSubscriptionService) {}

  @Post('workspaces/:id/webhooks')
  create(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(caller, workspaceId, body);
  }

  @Get('workspaces/:id/webhooks')
  @RateLimited(RateLimitKind.Lists)
  async list(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string) {
    return { webhooks: await this.webhooks.list(caller, workspaceId) };
  }

  @Get('webhooks/:id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.webhooks.get(caller, id);
  }

  @Patch('webhooks/:id')
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(caller, id, body);
  }

  @Delete('webhooks/:id')
  @HttpCode(200)
  async delete(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    await this.webhooks.delete(caller, id);
    return { success: true };
  }

  @Get('webhooks/:id/deliveries')
  @RateLimited(RateLimitKind.Lists)
  deliveries(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: DeliveryLogQueryDto) {
    return this.webhooks.deliveryLog(caller, id, query);
  }
}
