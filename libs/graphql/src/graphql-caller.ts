import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import { AuthorizationError, type Caller } from '#authorization';

export interface GraphqlContext {
  caller?: Caller;
}

/** The caller the GraphQL context resolved (HTTP: from the request; WebSocket: at connection init). */
export const GqlCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const caller = GqlExecutionContext.create(context).getContext<GraphqlContext>().caller;
  if (!caller) throw AuthorizationError.unauthenticated();
  return caller;
});
