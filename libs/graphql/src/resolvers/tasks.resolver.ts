import { UseInterceptors } from '@nestjs/common';
import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { LIST_PAGE } from '#common';
import { TaskService, WorkspaceService } from '#tasks';
import { GqlCaller } from '../graphql-caller.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { pageInfo, taskModel, workspaceModel } from './graphql.mappers.js';
import { LIST_PAGE_COST } from '../limits/operation-cost.js';
import { TaskConnectionModel, TaskModel, WorkspaceConnectionModel, WorkspaceModel } from '../models/task.model.js';

const FIRST = {
  type: () => Int,
  nullable: true,
  description: `Page size: default ${LIST_PAGE.defaultLimit}, 1 to ${LIST_PAGE.maxLimit}; anything else is a VALIDATION_ERROR naming \`limit\``,
};
const AFTER = { nullable: true, description: 'pageInfo.endCursor of the previous page; a cursor the server did not make is a VALIDATION_ERROR naming `cursor`' };
/** The list-typed queries predate paging: they keep their type for existing clients and return one page. */
const ONE_PAGE = `One page only (first, default ${LIST_PAGE.defaultLimit}) with no cursor to continue: use the connection`;

/** Tasks and workspaces: the same services, visibility, order, cursor and page rule as REST and MCP. */
@Resolver(() => TaskModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class TasksResolver {
  constructor(
    private readonly taskService: TaskService,
    private readonly workspaceService: WorkspaceService,
  ) {}

  @Query(() => TaskConnectionModel, {
    description: 'Visible tasks, oldest first, with their pending-action projection (one SQL query per page)',
    complexity: LIST_PAGE_COST,
  })
  async taskConnection(
    @GqlCaller() caller: Caller,
    @Args('workspaceId', { nullable: true }) workspaceId?: string,
    @Args('after', AFTER) after?: string,
    @Args('first', FIRST) first?: number,
  ): Promise<TaskConnectionModel> {
    const page = await this.taskService.list(caller, { workspaceId, cursor: after, limit: first });
    return { nodes: page.tasks.map(taskModel), count: page.tasks.length, pageInfo: pageInfo(page.next_cursor) };
  }

  @Query(() => [TaskModel], { description: 'The first page of taskConnection', complexity: LIST_PAGE_COST, deprecationReason: ONE_PAGE })
  async tasks(
    @GqlCaller() caller: Caller,
    @Args('workspaceId', { nullable: true }) workspaceId?: string,
    @Args('after', AFTER) after?: string,
    @Args('first', FIRST) first?: number,
  ): Promise<TaskModel[]> {
    return (await this.taskService.list(caller, { workspaceId, cursor: after, limit: first })).tasks.map(taskModel);
  }

  @Query(() => WorkspaceConnectionModel, { description: 'Visible workspaces, oldest first', complexity: LIST_PAGE_COST })
  async workspaceConnection(
    @GqlCaller() caller: Caller,
    @Args('after', AFTER) after?: string,
    @Args('first', FIRST) first?: number,
  ): Promise<WorkspaceConnectionModel> {
    const page = await this.workspaceService.list(caller, { cursor: after, limit: first });
    return { nodes: page.workspaces.map(workspaceModel), count: page.workspaces.length, pageInfo: pageInfo(page.next_cursor) };
  }

  @Query(() => [WorkspaceModel], { description: 'The first page of workspaceConnection', complexity: LIST_PAGE_COST, deprecationReason: ONE_PAGE })
  async workspaces(
    @GqlCaller() caller: Caller,
    @Args('after', AFTER) after?: string,
    @Args('first', FIRST) first?: number,
  ): Promise<WorkspaceModel[]> {
    return (await this.workspaceService.list(caller, { cursor: after, limit: first })).workspaces.map(workspaceModel);
  }
}
