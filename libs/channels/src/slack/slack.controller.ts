import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '#common';
import { ChatError } from '../chat.errors.js';
import { SlackInteractionService } from './slack-interaction.service.js';

/**
 * Slack's one request URL (docs/channels.md). No Parley identity: each request is authenticated by
 * Slack's signature over its raw body (the connectors' bodies are left raw for it). 404 while Slack is
 * not configured.
 */
@ApiExcludeController()
@Public()
@Controller('api/v1/connectors/slack')
export class SlackController {
  constructor(private readonly slack: SlackInteractionService) {}

  @Post('events')
  @HttpCode(200)
  async events(
    @Req() request: FastifyRequest,
    @Headers('x-slack-signature') signature: string | undefined,
    @Headers('x-slack-request-timestamp') timestamp: string | undefined,
    @Headers('content-type') contentType: string | undefined,
  ) {
    if (!Buffer.isBuffer(request.body)) throw ChatError.invalid('body is required');
    return (await this.slack.handle({ body: request.body, contentType: contentType ?? '', signature, timestamp })) ?? '';
  }
}
