import { UseInterceptors } from '@nestjs/common';
import { Args, Mutation, Resolver } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { ResolveBundleService } from '#clarification';
import { GqlCaller } from '../graphql-caller.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { resolutionModel } from './graphql.mappers.js';
import { AnswerInput, ResolutionModel } from '../models/resolution.model.js';

/** Mutations resolve through ResolveBundle, like every other surface. */
@Resolver(() => ResolutionModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class AnswerResolver {
  constructor(private readonly resolver: ResolveBundleService) {}

  @Mutation(() => ResolutionModel, { description: 'Answer every question of a pending bundle' })
  async answerQuestion(
    @GqlCaller() caller: Caller,
    @Args('pendingId') pendingId: string,
    @Args('answers', { type: () => [AnswerInput] }) answers: AnswerInput[],
  ): Promise<ResolutionModel> {
    const input = answers.map((answer) => ({
      question_id: answer.questionId,
      selected_options: answer.selectedOptions ?? [],
      custom_text: answer.customText ?? '',
    }));
    return resolutionModel(await this.resolver.resolve(caller, pendingId, { answers: input, rejected: false }, 'graphql'));
  }

  @Mutation(() => ResolutionModel, { description: 'Decline a pending bundle (what a human skip does)' })
  async rejectQuestion(
    @GqlCaller() caller: Caller,
    @Args('pendingId') pendingId: string,
    @Args('reason', { nullable: true }) reason?: string,
  ): Promise<ResolutionModel> {
    return resolutionModel(await this.resolver.resolve(caller, pendingId, { rejected: true, reject_reason: reason ?? '' }, 'graphql'));
  }
}
