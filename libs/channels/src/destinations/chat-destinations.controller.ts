import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '#authorization';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { ChatDestinationService } from './chat-destination.service.js';
import { SetChatDestinationDto } from './chat-destinations.dto.js';

/** Where a workspace's bundles are posted in chat (docs/channels.md): its owner's or an admin's to set; anyone else gets 404. */
@ApiTags('channels')
@ApiCaller()
@Controller('api/v1/workspaces/:id/chat-destinations')
export class ChatDestinationsController {
  constructor(private readonly destinations: ChatDestinationService) {}

  @Get()
  @ApiOkResponse({ description: '{destinations: [{workspace_id, platform, destination, updated_at}]}' })
  @ApiErrors(404, 429)
  @RateLimited(RateLimitKind.Lists)
  async list(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string) {
    return { destinations: await this.destinations.list(caller, workspaceId) };
  }

  @Put(':platform')
  @ApiOkResponse({ description: '{workspace_id, platform, destination, updated_at}' })
  @ApiJsonBody()
  @ApiErrors(400, 404, 429)
  @RateLimited(RateLimitKind.Lists)
  set(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string, @Param('platform') platform: string, @Body() body: SetChatDestinationDto) {
    return this.destinations.set(caller, workspaceId, platform, body.destination);
  }

  @Delete(':platform')
  @ApiOkResponse({ description: '{success: true}' })
  @ApiErrors(400, 404, 429)
  @RateLimited(RateLimitKind.Lists)
  @HttpCode(200)
  async clear(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string, @Param('platform') platform: string) {
    await this.destinations.clear(caller, workspaceId, platform);
    return { success: true };
  }
}
