import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Caller, CurrentCaller } from '../../authorization/src/index.js';
import { CommandService } from './command.service.js';
import { httpStatusOf } from './decisions.errors.js';
import { PendingInteractionsService } from './pending-interactions.service.js';

/** The chat-connector surface: poll what is pending, answer it with one semantic command. */
@Controller('api/v1')
export class DecisionsController {
  constructor(
    private readonly pending: PendingInteractionsService,
    private readonly commands: CommandService,
  ) {}

  @Get('pending-interactions')
  list(@CurrentCaller() caller: Caller) {
    return this.pending.list(caller);
  }

  /** The body is the envelope exactly as stored, so a replay is byte for byte the original. */
  @Post('commands')
  async submit(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    const result = await this.commands.submit(caller, body);
    await reply.status(httpStatusOf(result.status)).type('application/json; charset=utf-8').send(result.body);
  }
}
