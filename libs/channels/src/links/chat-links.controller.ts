import { Body, Controller, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '#authorization';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { ChatLinkService } from './chat-link.service.js';
import { CreateChatLinkDto } from './chat-links.dto.js';

/** The admin links a user's chat account (docs/channels.md); the CLI's users:link does the same. */
@ApiTags('admin')
@ApiCaller()
@AdminOnly()
@Controller('api/v1/admin')
export class ChatLinksController {
  constructor(private readonly links: ChatLinkService) {}

  @Post('users/:id/chat-links')
  @ApiCreatedResponse({ description: '{platform, account_id, user_id, linked_at}' })
  @ApiJsonBody()
  @ApiErrors(400, 404)
  link(@Param('id') userId: string, @Body() body: CreateChatLinkDto) {
    return this.links.link(body.platform, body.account_id, userId);
  }
}
