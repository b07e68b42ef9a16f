import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '#authorization';
import { ApiCaller, ApiErrors, ApiJsonBody, PageQueryDto } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { WebhookSubscriptionService } from './webhook-subscription.service.js';
import { CreateWebhookDto, UpdateWebhookDto } from './webhooks.dto.js';

/**
 * Outbound webhooks of a workspace (docs/api/webhooks.md): its owner's (or an admin's) to manage; anyone else gets 404.
 * Every route spends the lists budget — the budget GraphQL's webhook fields spend — never the answers one.
 */
@ApiTags('webhooks')
@ApiCaller()
@Controller('api/v1')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookSubscriptionService) {}

  @Post('workspaces/:id/webhooks')
  @ApiCreatedResponse({ description: 'The subscription, with its signing secret (shown this once)' })
  @ApiJsonBody()
  @ApiErrors(404, 409, 429)
  @RateLimited(RateLimitKind.Lists)
  create(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(caller, workspaceId, body);
  }

  @Get('workspaces/:id/webhooks')
  @ApiOkResponse({ description: "The workspace's subscriptions" })
  @ApiErrors(404, 429)
  @RateLimited(RateLimitKind.Lists)
  async list(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string) {
    return { webhooks: await this.webhooks.list(caller, workspaceId) };
  }

  @Get('webhooks/:id')
  @ApiOkResponse({ description: 'One subscription' })
  @ApiErrors(404, 429)
  @RateLimited(RateLimitKind.Lists)
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.webhooks.get(caller, id);
  }

  @Patch('webhooks/:id')
  @ApiOkResponse({ description: 'The changed subscription' })
  @ApiJsonBody()
  @ApiErrors(404, 429)
  @RateLimited(RateLimitKind.Lists)
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
    return this.webhooks.update(caller, id, body);
  }

  @Delete('webhooks/:id')
  @ApiOkResponse({ description: '{success: true}' })
  @ApiErrors(404, 429)
  @RateLimited(RateLimitKind.Lists)
  @HttpCode(200)
  async delete(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    await this.webhooks.delete(caller, id);
    return { success: true };
  }

  @Get('webhooks/:id/deliveries')
  @ApiOkResponse({ description: 'The delivery log, newest first, with a cursor' })
  @ApiErrors(400, 404, 429)
  @RateLimited(RateLimitKind.Lists)
  deliveries(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: PageQueryDto) {
    return this.webhooks.deliveryLog(caller, id, query);
  }
}
