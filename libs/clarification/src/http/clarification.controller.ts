import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AcceptsSessionAgent, type Caller, CurrentCaller } from '#authorization';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { CreateClarificationDto, ListPendingQueryDto, RespondDto } from './clarification.dto.js';
import { AskService } from '../ask/ask.service.js';
import { BundleWaitService } from '../ask/bundle-wait.service.js';
import { CancelBundleService } from '../ask/cancel-bundle.service.js';
import { bundleReportView } from '../read/bundle-state.mapper.js';
import { BundleReadService } from '../read/bundle-read.service.js';
import { PendingListService } from '../pending-list/pending-list.service.js';
import { serializeResolution } from '../resolve/resolution.envelope.js';
import { ResolveBundleService } from '../resolve/resolve-bundle.service.js';
import { SURFACE_HEADER, surfaceOfRequest } from '../bundle/resolution-surface.types.js';
import { ApiCaller, ApiErrors, ApiJsonBody, replyWhenSettled } from '#common';
import { PendingIdDoc, SuccessDoc } from './clarification.openapi.js';
import { bundleReadWire } from '../wire/bundle-read.wire.js';
import { pendingPageWire } from '../wire/pending-bundle.wire.js';
import { clarificationResponseWire, respondResultWire } from '../wire/resolution.wire.js';
import { clarificationWire } from '../wire/wire-openapi.js';

@ApiTags('clarification')
@ApiCaller()
@Controller('api/v1/clarification')
export class ClarificationController {
  constructor(
    private readonly asks: AskService,
    private readonly reader: BundleReadService,
    private readonly waits: BundleWaitService,
    private readonly cancels: CancelBundleService,
    private readonly resolver: ResolveBundleService,
    private readonly pending: PendingListService,
  ) {}

  /** The list of list_pending_questions_kandev and GraphQL pendingQuestions, for simple clients (same service). */
  @Get()
  @ApiOkResponse({ schema: clarificationWire.ref(pendingPageWire), description: 'Pending bundles the caller may answer, oldest first (L1–L13)' })
  @ApiErrors(400, 429)
  @RateLimited(RateLimitKind.Lists)
  list(@CurrentCaller() caller: Caller, @Query() query: ListPendingQueryDto) {
    return this.pending.list(caller, query);
  }

  @Post('request')
  @ApiOkResponse({ type: PendingIdDoc })
  @ApiJsonBody()
  @ApiErrors(403, 404, 409, 429)
  @AcceptsSessionAgent()
  @RateLimited(RateLimitKind.Asks)
  @HttpCode(200)
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateClarificationDto) {
    const { request } = await this.asks.askAs(caller, {
      sessionId: body.session_id,
      taskId: body.task_id,
      questions: body.questions,
      context: body.context,
      expiresInSeconds: body.expires_in_seconds,
      routing: body.routing,
      action: body.action,
    });
    return { pending_id: request.pending_id };
  }

  /** The bundle with its status, and the winner's response once final — from the durable rows (A7). */
  @Get(':id')
  @ApiOkResponse({ schema: clarificationWire.ref(bundleReadWire) })
  @ApiErrors(404)
  @AcceptsSessionAgent()
  async get(@CurrentCaller() caller: Caller, @Param('id') pendingId: string) {
    return bundleReportView(await this.reader.getBundle(caller, pendingId));
  }

  @Get(':id/wait')
  @ApiOkResponse({ schema: clarificationWire.ref(clarificationResponseWire), description: 'Blocks until the bundle is answered or rejected' })
  @ApiErrors(404, 409, 504)
  @AcceptsSessionAgent()
  wait(@CurrentCaller() caller: Caller, @Param('id') pendingId: string, @Res() reply: FastifyReply): void {
    replyWhenSettled(reply, (answer) => this.waits.wait(caller, pendingId, answer));
  }

  /**
   * R10: 200 for the winner and for a loser to a resolved winner; 409 not active; 400; 404; 500.
   * Recorded as `web` when the browser session's cookie authenticated it (the page's header only while auth is disabled).
   */
  @Post(':id/respond')
  @ApiOkResponse({ schema: clarificationWire.ref(respondResultWire) })
  @ApiJsonBody()
  @ApiErrors(403, 404, 409, 429)
  @RateLimited(RateLimitKind.Answers)
  @HttpCode(200)
  async respond(
    @CurrentCaller() caller: Caller,
    @Param('id') pendingId: string,
    @Body() body: RespondDto,
    @Headers(SURFACE_HEADER) surface: string | undefined,
  ) {
    const resolution = await this.resolver.resolve(caller, pendingId, body, surfaceOfRequest(caller, surface));
    return { success: true, ...serializeResolution(resolution) };
  }

  @Post(':id/cancel')
  @ApiOkResponse({ type: SuccessDoc })
  @ApiErrors(403, 404, 409)
  @AcceptsSessionAgent()
  @HttpCode(200)
  async cancel(@CurrentCaller() caller: Caller, @Param('id') pendingId: string) {
    await this.cancels.cancel(caller, pendingId);
    return { success: true };
  }
}
