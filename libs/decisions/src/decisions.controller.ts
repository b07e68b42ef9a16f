import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Caller, CurrentCaller } from '#authorization';
import { CommandService } from './command.service.js';
import { httpStatusOf } from './decisions.errors.js';
import { PendingInteractionsService } from './pending-interactions.service.js';
import { ApiBody, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';

/** The chat-connector surface: poll what is pending, answer it with one semantic command. */
@ApiTags('decisions')
@ApiCaller()
@Controller('api/v1')
export class DecisionsController {
  constructor(
    private readonly pending: PendingInteractionsService,
    private readonly commands: CommandService,
  ) {}

  @Get('pending-interactions')
  @ApiOkResponse({ description: 'The pending interactions of the connector contract (docs/api/commands.md)', schema: { type: 'object', additionalProperties: true } })
  @ApiErrors(429)
  @RateLimited(RateLimitKind.Lists)
  list(@CurrentCaller() caller: Caller) {
    return this.pending.list(caller);
  }

  /** The body is the envelope exactly as stored, so a replay is byte for byte the original. */
  @Post('commands')
  @ApiBody({ description: 'A semantic command of the connector contract (docs/api/commands.md)', schema: { type: 'object', additionalProperties: true } })
  @ApiOkResponse({ description: 'The command result envelope; a replay is byte for byte the original', schema: { type: 'object', additionalProperties: true } })
  @ApiResponse({ status: 202, description: 'Accepted, not final yet (status PENDING): poll again with the same request id' })
  @ApiJsonBody()
  @ApiErrors(404, 409, 429)
  // Every command is an answer attempt (known worker or not): the answers budget, as REST respond spends it.
  @RateLimited(RateLimitKind.Answers)
  async submit(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    const result = await this.commands.submit(caller, body);
    await reply.status(httpStatusOf(result.status)).type('application/json; charset=utf-8').send(result.body);
  }
}
