import { Body, Controller, Get, Post } from '@nestjs/common';
import { type Caller, CurrentCaller } from '../../authorization/src/index.js';
import { RateLimited, RateLimitKind } from '../../rate-limit/src/index.js';
import { CreateWorkspaceDto } from './tasks.dto.js';
import { workspaceView } from './tasks.views.js';
import { WorkspaceService } from './workspace.service.js';

@Controller('api/v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspaceService) {}

  @Post()
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateWorkspaceDto) {
    return workspaceView(await this.workspaces.create(caller, body.name, body.owner_id));
  }

  @Get()
  @RateLimited(RateLimitKind.Lists)
  async list(@CurrentCaller() caller: Caller) {
    return { workspaces: (await this.workspaces.list(caller)).map(workspaceView) };
  }
}
