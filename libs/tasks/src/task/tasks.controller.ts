import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { type Caller, CurrentCaller, RequireAccess } from '#authorization';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { SessionService } from '../session/session.service.js';
import { TaskService } from './task.service.js';
import { CreateSessionDto, CreateTaskDto, ListTasksQueryDto } from '../tasks.dto.js';
import { sessionView, taskView } from '../tasks.views.js';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { CreatedSessionDoc } from '../tasks.openapi.js';
import { taskPageWire, taskWire } from '../wire/task.wire.js';
import { tasksWire } from '../wire/tasks-wire-openapi.js';

@ApiTags('tasks')
@ApiCaller()
@Controller('api/v1/tasks')
export class TasksController {
  constructor(
    private readonly tasks: TaskService,
    private readonly sessions: SessionService,
  ) {}

  @Post()
  @ApiCreatedResponse({ schema: tasksWire.ref(taskWire) })
  @ApiJsonBody()
  @ApiErrors(404, 429)
  @RateLimited(RateLimitKind.Creations)
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateTaskDto) {
    return taskView(await this.tasks.create(caller, body.title, body.workspace_id));
  }

  @Get()
  @ApiOkResponse({ schema: tasksWire.ref(taskPageWire), description: 'One page of the tasks the caller may see, oldest first' })
  @ApiErrors(400, 429)
  @RateLimited(RateLimitKind.Lists)
  async list(@CurrentCaller() caller: Caller, @Query() query: ListTasksQueryDto) {
    const page = await this.tasks.list(caller, { workspaceId: query.workspace_id, limit: query.limit, cursor: query.cursor });
    return { tasks: page.tasks.map(taskView), next_cursor: page.next_cursor };
  }

  @Get(':id')
  @ApiOkResponse({ schema: tasksWire.ref(taskWire) })
  @ApiErrors(404)
  @RequireAccess('task')
  async get(@CurrentCaller() caller: Caller, @Param('id') taskId: string) {
    return taskView(await this.tasks.get(caller, taskId));
  }

  @Post(':id/archive')
  @ApiOkResponse({ schema: tasksWire.ref(taskWire), description: 'Archived (idempotent): active bundles of its sessions end' })
  @ApiErrors(403, 404)
  @HttpCode(200)
  @RequireAccess('task')
  async archive(@CurrentCaller() caller: Caller, @Param('id') taskId: string) {
    return taskView(await this.tasks.archive(caller, taskId));
  }

  @Post(':id/sessions')
  @ApiCreatedResponse({ type: CreatedSessionDoc })
  @ApiJsonBody()
  @ApiErrors(404, 409, 429)
  @RequireAccess('task')
  @RateLimited(RateLimitKind.Creations)
  async createSession(@CurrentCaller() caller: Caller, @Param('id') taskId: string, @Body() body: CreateSessionDto) {
    const { session, agentToken } = await this.sessions.create(caller, taskId, body.resume_url);
    return { ...sessionView(session), agent_token: agentToken };
  }
}
