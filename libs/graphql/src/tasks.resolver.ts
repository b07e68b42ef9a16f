import { UseInterceptors } from '@nestjs/common';
import { Args, Query, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { UNPAGED_LIST_SIZE } from '#common';
import { TaskService, WorkspaceService } from '#tasks';
import { GqlCaller } from './graphql-caller.js';
import { GraphqlErrorsInterceptor } from './graphql-errors.interceptor.js';
import { taskModel, workspaceModel } from './graphql.mappers.js';
import { listCost } from './operation-cost.js';
import { TaskModel, WorkspaceModel } from './models/task.model.js';

@Resolver(() => TaskModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class TasksResolver {
  constructor(
    private readonly taskService: TaskService,
    private readonly workspaceService: WorkspaceService,
  ) {}

  @Query(() => [TaskModel], {
    description: 'Visible tasks with their pending-action projection (one SQL query)',
    complexity: listCost(UNPAGED_LIST_SIZE),
  })
  async tasks(@GqlCaller() caller: Caller, @Args('workspaceId', { nullable: true }) workspaceId?: string): Promise<TaskModel[]> {
    return (await this.taskService.list(caller, workspaceId)).map(taskModel);
  }

  @Query(() => [WorkspaceModel], { complexity: listCost(UNPAGED_LIST_SIZE) })
  async workspaces(@GqlCaller() caller: Caller): Promise<WorkspaceModel[]> {
    return (await this.workspaceService.list(caller)).map(workspaceModel);
  }
}
