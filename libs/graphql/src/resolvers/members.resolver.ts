import { UseInterceptors } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { type Caller, MembershipService } from '#authorization';
import { GqlCaller } from '../graphql-caller.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { memberModel } from './graphql.mappers.js';
import { listCost } from '../limits/operation-cost.js';
import { MAX_ANSWERERS, WorkspaceMemberChangeModel, WorkspaceMemberModel } from '../models/routing.model.js';

/** Workspace members (admin only: to anyone else the workspace is NOT_FOUND), through the one MembershipService. */
@Resolver(() => WorkspaceMemberModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class MembersResolver {
  constructor(private readonly members: MembershipService) {}

  @Query(() => [WorkspaceMemberModel], { description: "A workspace's members, oldest first (admin only)", complexity: listCost(MAX_ANSWERERS) })
  async workspaceMembers(@GqlCaller() caller: Caller, @Args('workspaceId') workspaceId: string): Promise<WorkspaceMemberModel[]> {
    return (await this.members.list(caller, workspaceId)).map(memberModel);
  }

  @Mutation(() => WorkspaceMemberChangeModel, { description: 'Adds a member (idempotent; admin only); an unknown user is a VALIDATION_ERROR naming userId' })
  async addWorkspaceMember(
    @GqlCaller() caller: Caller,
    @Args('workspaceId') workspaceId: string,
    @Args('userId') userId: string,
  ): Promise<WorkspaceMemberChangeModel> {
    const { member, added } = await this.members.add(caller, workspaceId, userId, 'userId');
    return { workspaceId: member.workspace_id, userId: member.user_id, changed: added };
  }

  @Mutation(() => WorkspaceMemberChangeModel, { description: 'Removes a member (admin only): effective on their next request and open subscriptions' })
  async removeWorkspaceMember(
    @GqlCaller() caller: Caller,
    @Args('workspaceId') workspaceId: string,
    @Args('userId') userId: string,
  ): Promise<WorkspaceMemberChangeModel> {
    const removed = await this.members.remove(caller, workspaceId, userId, 'userId');
    return { workspaceId: removed.workspace_id, userId: removed.user_id, changed: removed.removed };
  }
}
