import { ApiExcludeController } from '@nestjs/swagger';
import { Controller, Delete, Get, Logger, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { agentCaller, AuthorizationError, bearerToken, IdentityService } from '#authorization';
import { AgentAskService } from '#clarification';
import { Public } from '#common';
import { callerKey } from '#rate-limit';
import { McpAdmission } from '../mcp-admission.js';
import { methodNotAllowed, serveMcpRequest } from '../transport/mcp-http.js';
import { InFlightMcpRequests } from '../transport/mcp-in-flight.js';
import type { McpExchange } from '../mcp-tool.js';
import { createToolServer } from '../mcp-tool-server.js';
import { sessionTools } from './session-tools.js';
import { ModernMcpEndpoint } from '../modern/modern-mcp.endpoint.js';

/** The name the in-session tool server announces. */
const SESSION_SERVER = 'parley-session';

/** `/mcp/session`: the in-session MCP surface, authenticated by the session's agent token in every auth mode. */
@Public()
@ApiExcludeController()
@Controller('mcp/session')
export class SessionMcpController {
  /** Lets an agent's `notifications/cancelled` abort its own blocked ask (see InFlightMcpRequests). */
  private readonly inFlight = new InFlightMcpRequests();
  private readonly logger = new Logger('MCP');
  /** The blocking ask streams its progress: every answer is an SSE stream. */
  private readonly modern = new ModernMcpEndpoint('sse', SESSION_SERVER);

  constructor(
    private readonly identity: IdentityService,
    private readonly asks: AgentAskService,
    private readonly admission: McpAdmission,
  ) {}

  @Post()
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const credential = bearerToken(request);
    const agent = credential ? await this.identity.authenticateSessionAgent(credential) : undefined;
    if (!agent) throw AuthorizationError.unauthenticated('a session agent token is required');
    if (!(await this.admission.admit(request.body, callerKey(agentCaller(agent), request.ip), reply))) return;
    const context = { requestId: String(request.id), logger: this.logger };
    if (ModernMcpEndpoint.claims(request)) {
      await this.modern.serve(request, reply, (exchangeOf) => createToolServer(SESSION_SERVER, sessionTools(agent, this.asks, exchangeOf, context), context));
      return;
    }
    const serverFor = (exchange: McpExchange) => createToolServer(SESSION_SERVER, sessionTools(agent, this.asks, () => exchange, context), context);
    await serveMcpRequest(serverFor, request, reply, 'sse', { requests: this.inFlight, caller: agent.sessionId });
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
