import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AcceptsSessionAgent, type Caller, CurrentCaller } from '../../authorization/src/index.js';
import { RateLimited, RateLimitKind } from '../../rate-limit/src/index.js';
import { CreateClarificationDto, ListPendingQueryDto, RespondDto } from './clarification.dto.js';
import { ClarificationService } from './clarification.service.js';
import { PendingListService } from './pending-list.service.js';
import { serializeResolution } from './resolution.envelope.js';
import { ResolveBundleService } from './resolve-bundle.service.js';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody } from '../../common/src/index.js';
import { BundleDoc, ClarificationResponseDoc, PendingIdDoc, PendingPageDoc, RespondResultDoc, SuccessDoc } from './clarification.openapi.js';

/** Aborts when the client goes away before the response was sent (the response's socket closed). */
function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

@ApiTags('clarification')
@ApiCaller()
@Controller('api/v1/clarification')
export class ClarificationController {
  constructor(
    private readonly clarifications: ClarificationService,
    private readonly resolver: ResolveBundleService,
    private readonly pending: PendingListService,
  ) {}

  /** The list of list_pending_questions_kandev and GraphQL pendingQuestions, for simple clients (same service). */
  @Get()
  @ApiOkResponse({ type: PendingPageDoc, description: 'Pending bundles the caller may answer, oldest first (L1–L13)' })
  @ApiErrors(400, 429)
  @RateLimited(RateLimitKind.Lists)
  list(@CurrentCaller() caller: Caller, @Query() query: ListPendingQueryDto) {
    return this.pending.list(caller, query);
  }

  @Post('request')
  @ApiOkResponse({ type: PendingIdDoc })
  @ApiJsonBody()
  @ApiErrors(404, 409, 429)
  @RateLimited(RateLimitKind.Asks)
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

  /** The bundle with its status, and the winner's response once final — from the durable rows (A7). */
  @Get(':id')
  @ApiOkResponse({ type: BundleDoc })
  @ApiErrors(404)
  @AcceptsSessionAgent()
  async get(@CurrentCaller() caller: Caller, @Param('id') pendingId: string) {
    const state = await this.clarifications.getBundle(caller, pendingId);
    return { ...state.request, status: state.status, response: state.response };
  }

  @Get(':id/wait')
  @ApiOkResponse({ type: ClarificationResponseDoc, description: 'Blocks until the bundle is answered or rejected' })
  @ApiErrors(404, 504)
  @AcceptsSessionAgent()
  wait(@CurrentCaller() caller: Caller, @Param('id') pendingId: string, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.clarifications.wait(caller, pendingId, disconnectSignal(reply));
  }

  /** R10: 200 for the winner and for a loser to a resolved winner; 409 not active; 400; 404; 500. */
  @Post(':id/respond')
  @ApiOkResponse({ type: RespondResultDoc })
  @ApiJsonBody()
  @ApiErrors(404, 409, 429)
  @RateLimited(RateLimitKind.Answers)
  @HttpCode(200)
  async respond(@CurrentCaller() caller: Caller, @Param('id') pendingId: string, @Body() body: RespondDto) {
    const resolution = await this.resolver.resolve(caller, pendingId, body, 'rest');
    return { success: true, ...serializeResolution(resolution) };
  }

  @Post(':id/cancel')
  @ApiOkResponse({ type: SuccessDoc })
  @ApiErrors(404, 409)
  @HttpCode(200)
  async cancel(@CurrentCaller() caller: Caller, @Param('id') pendingId: string) {
    await this.clarifications.cancel(caller, pendingId);
    return { success: true };
  }
}
