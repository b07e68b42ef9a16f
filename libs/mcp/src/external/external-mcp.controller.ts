import { ApiExcludeController } from '@nestjs/swagger';
import { Controller, Delete, Get, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, CurrentCaller } from '#authorization';
import { BundleReadService, PendingListService, ResolveBundleService } from '#clarification';
import { TaskService } from '#tasks';
import { APP_CONFIG, type AppConfig } from '#config';
import { questionAppResource } from '../app/question-app.resource.js';
import { publicOrigin } from '../app/public-origin.js';
import { callerKey } from '#rate-limit';
import { externalTools } from './external-tools.js';
import { McpAdmission } from '../mcp-admission.js';
import { methodNotAllowed, serveMcpRequest } from '../transport/mcp-http.js';
import { createToolServer } from '../mcp-tool-server.js';
import { ModernMcpEndpoint } from '../modern/modern-mcp.endpoint.js';

/** The name the external tool server announces. */
const EXTERNAL_SERVER = 'parley';

/** `/mcp`: the external MCP surface; the caller (token or cookie) reaches the services unchanged. */
@ApiExcludeController()
@Controller('mcp')
export class ExternalMcpController {
  private readonly logger = new Logger('MCP');
  /** Its tools never report progress: one JSON body each. */
  private readonly modern = new ModernMcpEndpoint('auto', EXTERNAL_SERVER);

  constructor(
    private readonly pending: PendingListService,
    private readonly resolver: ResolveBundleService,
    private readonly tasks: TaskService,
    private readonly reader: BundleReadService,
    private readonly admission: McpAdmission,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  async post(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!(await this.admission.admit(request.body, callerKey(caller, request.ip), reply))) return;
    const tools = externalTools(caller, { pending: this.pending, resolver: this.resolver, tasks: this.tasks, reader: this.reader });
    const resources = [questionAppResource(publicOrigin(this.config, request))];
    const serverFor = () => createToolServer(EXTERNAL_SERVER, tools, { requestId: String(request.id), logger: this.logger }, resources);
    if (ModernMcpEndpoint.claims(request)) await this.modern.serve(request, reply, serverFor);
    else await serveMcpRequest(serverFor, request, reply, 'json');
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
