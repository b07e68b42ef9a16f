import { UseInterceptors } from '@nestjs/common';
import { Args, Int, Query, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { type AuditAttemptView, AuditService } from '#clarification';
import { LIST_PAGE } from '#common';
import { GqlCaller } from '../graphql-caller.js';
import { pageInfo } from './graphql.mappers.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { ResolutionAttemptConnectionModel, type ResolutionAttemptModel } from '../models/audit.model.js';
import { LIST_PAGE_COST } from '../limits/operation-cost.js';

function attemptModel(attempt: AuditAttemptView): ResolutionAttemptModel {
  return {
    id: attempt.id,
    pendingId: attempt.pending_id,
    outcome: attempt.outcome,
    surface: attempt.surface,
    caller: { kind: attempt.caller.kind, userId: attempt.caller.user_id, name: attempt.caller.name },
    rejected: attempt.rejected,
    rejectReason: attempt.reject_reason,
    detail: attempt.detail,
    at: attempt.at,
  };
}

/** The audit trail of a bundle: the same service and authorization as GET /clarification/:id/audit. */
@Resolver(() => ResolutionAttemptConnectionModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class AuditResolver {
  constructor(private readonly audit: AuditService) {}

  @Query(() => ResolutionAttemptConnectionModel, {
    description: 'Every attempt to answer or reject a bundle, in the order they ended',
    complexity: LIST_PAGE_COST,
  })
  async questionAudit(
    @GqlCaller() caller: Caller,
    @Args('pendingId') pendingId: string,
    @Args('after', { nullable: true, description: 'pageInfo.endCursor of the previous page' }) after?: string,
    @Args('first', { type: () => Int, nullable: true, description: `default ${LIST_PAGE.defaultLimit}, at most ${LIST_PAGE.maxLimit}` }) first?: number,
  ): Promise<ResolutionAttemptConnectionModel> {
    const page = await this.audit.list(caller, pendingId, { cursor: after, limit: first });
    return { nodes: page.attempts.map(attemptModel), pageInfo: pageInfo(page.next_cursor) };
  }
}
