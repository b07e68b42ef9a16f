import { UseInterceptors } from '@nestjs/common';
import { Args, Query, Resolver, Subscription } from '@nestjs/graphql';
import type { Caller } from '#authorization';
import { type QuestionEventRow, QuestionEventService } from '#clarification';
import { GqlCaller } from '../graphql-caller.js';
import { GraphqlErrorsInterceptor } from '../graphql-errors.interceptor.js';
import { questionEventModel } from './graphql.mappers.js';
import { QuestionEventModel } from '../models/question-event.model.js';

@Resolver(() => QuestionEventModel)
@UseInterceptors(GraphqlErrorsInterceptor)
export class QuestionEventsResolver {
  constructor(private readonly events: QuestionEventService) {}

  @Query(() => String, {
    description:
      'Where the question-event feed stands now. Read it before listing pending questions, then subscribe with `after` = it: every event after the list reaches the subscription.',
  })
  questionEventsCursor(@GqlCaller() _caller: Caller): Promise<string> {
    return this.events.position();
  }

  @Subscription(() => QuestionEventModel, {
    description: 'Question events you may see. Pass the last id you received as `after` to get every missed event first.',
    resolve: (event: QuestionEventModel) => event,
  })
  async questionEvents(
    @GqlCaller() caller: Caller,
    @Args('workspaceId', { nullable: true }) workspaceId?: string,
    @Args('after', { nullable: true }) after?: string,
  ): Promise<AsyncIterableIterator<QuestionEventModel>> {
    const stream = await this.events.open(caller, { workspaceId, after });
    return mapStream(stream);
  }
}

function mapStream(stream: AsyncIterableIterator<QuestionEventRow>): AsyncIterableIterator<QuestionEventModel> {
  return {
    async next() {
      const result = await stream.next();
      return result.done ? { value: undefined, done: true } : { value: questionEventModel(result.value), done: false };
    },
    async return() {
      await stream.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
