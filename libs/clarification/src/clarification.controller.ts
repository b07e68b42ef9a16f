import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type Caller, CurrentCaller } from '../../authorization/src/index.js';
import { CreateClarificationDto } from './clarification.dto.js';
import { ClarificationService } from './clarification.service.js';

function closedSignal(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.once('close', () => controller.abort());
  return controller.signal;
}

@Controller('api/v1/clarification')
export class ClarificationController {
  constructor(private readonly clarifications: ClarificationService) {}

  @Post('request')
  @HttpCode(200)
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateClarificationDto) {
    const { request } = await this.clarifications.askAs(caller, {
      sessionId: body.session_id,
      taskId: body.task_id,
      questions: body.questions,
      context: body.context,
    });
    return { pending_id: request.pending_id };
  }

  @Get(':id')
  get(@CurrentCaller() caller: Caller, @Param('id') pendingId: string) {
    return this.clarifications.getRequest(caller, pendingId);
  }

  @Get(':id/wait')
  wait(@CurrentCaller() caller: Caller, @Param('id') pendingId: string, @Req() request: FastifyRequest) {
    return this.clarifications.wait(caller, pendingId, closedSignal(request));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@CurrentCaller() caller: Caller, @Param('id') pendingId: string) {
    await this.clarifications.cancel(caller, pendingId);
    return { success: true };
  }
}
