import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { type Caller, CurrentCaller } from '#authorization';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { CreateWorkspaceDto } from '../tasks.dto.js';
import { workspaceView } from '../tasks.views.js';
import { WorkspaceService } from './workspace.service.js';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody, PageQueryDto } from '#common';
import { workspacePageWire, workspaceWire } from '../wire/task.wire.js';
import { tasksWire } from '../wire/tasks-wire-openapi.js';

@ApiTags('workspaces')
@ApiCaller()
@Controller('api/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspaceService) {}

  @Post()
  @ApiCreatedResponse({ schema: tasksWire.ref(workspaceWire) })
  @ApiJsonBody()
  @ApiErrors(429)
  @RateLimited(RateLimitKind.Creations)
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateWorkspaceDto) {
    return workspaceView(await this.workspaces.create(caller, body.name, body.owner_id));
  }

  @Get()
  @ApiOkResponse({ schema: tasksWire.ref(workspacePageWire), description: 'One page of the workspaces the caller may see, oldest first' })
  @ApiErrors(400, 429)
  @RateLimited(RateLimitKind.Lists)
  async list(@CurrentCaller() caller: Caller, @Query() query: PageQueryDto) {
    const page = await this.workspaces.list(caller, { limit: query.limit, cursor: query.cursor });
    return { workspaces: page.workspaces.map(workspaceView), next_cursor: page.next_cursor };
  }
}
