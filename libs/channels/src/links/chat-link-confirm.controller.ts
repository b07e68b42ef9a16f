import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '#authorization';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { ChatLinkService } from './chat-link.service.js';
import { ConfirmChatLinkDto } from './chat-links.dto.js';

/** The browser inbox confirms a link asked for in chat (`/parley link`, `/link`): the account then answers as the signed-in user. */
@ApiTags('channels')
@ApiCaller()
@Controller('api/v1/chat-links')
export class ChatLinkConfirmController {
  constructor(private readonly links: ChatLinkService) {}

  @Post('confirm')
  @ApiOkResponse({ description: '{platform, account_id, user_id, linked_at}' })
  @ApiJsonBody()
  @ApiErrors(400, 404, 429)
  @RateLimited(RateLimitKind.Creations)
  @HttpCode(200)
  confirm(@CurrentCaller() caller: Caller, @Body() body: ConfirmChatLinkDto) {
    return this.links.confirm(caller, body.code);
  }
}
