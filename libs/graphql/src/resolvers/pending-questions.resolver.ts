import { UseInterceptors } from '@nestjs/common';
import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { DEFAULT_PENDING_LIMIT, MAX_PENDING_LIMIT, PendingListService } from '#clarification';
import { GqlCaller } from '../graphql-caller.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { bundleModel, connectionModel } from './graphql.mappers.js';
import { pageCost } from '../limits/operation-cost.js';
import { PendingBundleModel, PendingQuestionConnectionModel } from '../models/pending-question.model.js';

/** The same list as list_pending_questions_kandev: same service, visibility, order, cursor and limits. */
@Resolver(() => PendingBundleModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class PendingQuestionsResolver {
  constructor(private readonly pending: PendingListService) {}

  @Query(() => PendingQuestionConnectionModel, {
    description: 'Pending questions, oldest first, across visible workspaces',
    complexity: pageCost(DEFAULT_PENDING_LIMIT, MAX_PENDING_LIMIT),
  })
  async pendingQuestions(
    @GqlCaller() caller: Caller,
    @Args('workspaceId', { nullable: true }) workspaceId?: string,
    @Args('createdSince', { nullable: true, description: 'RFC3339' }) createdSince?: string,
    @Args('after', { nullable: true, description: 'pageInfo.endCursor of the previous page' }) after?: string,
    @Args('first', { type: () => Int, nullable: true, description: 'default 50, at most 200' }) first?: number,
  ): Promise<PendingQuestionConnectionModel> {
    return connectionModel(
      await this.pending.list(caller, { workspace_id: workspaceId, created_since: createdSince, cursor: after, limit: first }),
    );
  }

  @Query(() => PendingBundleModel, { description: 'One bundle by pending id (any state)' })
  async question(@GqlCaller() caller: Caller, @Args('pendingId') pendingId: string): Promise<PendingBundleModel> {
    return bundleModel(await this.pending.describe(caller, pendingId));
  }
}
