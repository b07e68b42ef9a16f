import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { AcceptsSessionAgent, type Caller, CurrentCaller, RequireAccess } from '#authorization';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { SessionService } from './session.service.js';
import { ListMessagesQueryDto, UpdateSessionDto } from '../tasks.dto.js';
import { messageView, sessionView, turnView } from '../tasks.views.js';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { MessagePageDoc, SessionDoc, StartedTurnDoc, TurnDoc } from '../tasks.openapi.js';

@ApiTags('sessions')
@ApiCaller()
@ApiErrors(404)
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionService) {}

  @Get(':id')
  @ApiOkResponse({ type: SessionDoc })
  @RequireAccess('session')
  async get(@CurrentCaller() caller: Caller, @Param('id') sessionId: string) {
    return sessionView(await this.sessions.get(caller, sessionId));
  }

  @Patch(':id')
  @ApiOkResponse({ type: SessionDoc })
  @ApiJsonBody()
  @ApiErrors(403, 409)
  @RequireAccess('session')
  @AcceptsSessionAgent()
  async update(@CurrentCaller() caller: Caller, @Param('id') sessionId: string, @Body() body: UpdateSessionDto) {
    return sessionView(await this.sessions.setState(caller, sessionId, body.state));
  }

  @Post(':id/turns')
  @ApiCreatedResponse({ type: StartedTurnDoc })
  @ApiErrors(403, 409)
  @RequireAccess('session')
  @AcceptsSessionAgent()
  async startTurn(@CurrentCaller() caller: Caller, @Param('id') sessionId: string) {
    const turn = turnView(await this.sessions.startTurn(caller, sessionId));
    return { id: turn.id, session_id: turn.session_id, started_at: turn.started_at };
  }

  @Post(':id/turns/:turnId/complete')
  @ApiOkResponse({ type: TurnDoc })
  @ApiErrors(403, 409)
  @HttpCode(200)
  @RequireAccess('session')
  @AcceptsSessionAgent()
  async completeTurn(@CurrentCaller() caller: Caller, @Param('id') sessionId: string, @Param('turnId') turnId: string) {
    return turnView(await this.sessions.completeTurn(caller, sessionId, turnId));
  }

  @Get(':id/messages')
  @ApiOkResponse({ type: MessagePageDoc })
  @ApiErrors(400, 429)
  @RequireAccess('session')
  @RateLimited(RateLimitKind.Lists)
  async messages(@CurrentCaller() caller: Caller, @Param('id') sessionId: string, @Query() query: ListMessagesQueryDto) {
    const page = await this.sessions.listMessages(caller, sessionId, query.limit, query.cursor);
    return { messages: page.messages.map(messageView), next_cursor: page.nextCursor };
  }
}
