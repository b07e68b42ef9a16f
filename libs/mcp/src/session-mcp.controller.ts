import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthorizationError, bearerToken, IdentityService } from '../../authorization/src/index.js';
import { AgentAskService } from '../../clarification/src/index.js';
import { Public } from '../../common/src/index.js';
import { methodNotAllowed, serveMcpRequest } from './mcp-http.js';
import { InFlightMcpRequests } from './mcp-in-flight.js';
import { createSessionMcpServer } from './session-tools.js';

/** `/mcp/session`: the in-session MCP surface, authenticated by the session's agent token in every auth mode. */
@Public()
@Controller('mcp/session')
export class SessionMcpController {
  /** Lets an agent's `notifications/cancelled` abort its own blocked ask (see InFlightMcpRequests). */
  private readonly inFlight = new InFlightMcpRequests();

  constructor(
    private readonly identity: IdentityService,
    private readonly asks: AgentAskService,
  ) {}

  @Post()
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const credential = bearerToken(request);
    const agent = credential ? await this.identity.authenticateSessionAgent(credential) : undefined;
    if (!agent) throw AuthorizationError.unauthenticated('a session agent token is required');
    await serveMcpRequest(createSessionMcpServer(agent, this.asks), request, reply, { requests: this.inFlight, caller: agent.sessionId });
  }

  @Get()
  get(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }

  @Delete()
  remove(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }
}
