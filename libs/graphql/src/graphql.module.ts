import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import type { FastifyReply, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import { bearerCredential, IdentityService } from '../../authorization/src/index.js';
import { ClarificationModule } from '../../clarification/src/index.js';
import { BEARER_CHALLENGE } from '../../common/src/index.js';
import { TasksModule } from '../../tasks/src/index.js';
import type { GraphqlContext } from './graphql-caller.js';
import { GraphqlErrorCode } from './graphql-errors.js';
import { maxFieldsRule } from './query-cost.rule.js';
import { RESOLVERS } from './schema-printer.js';

export const MAX_QUERY_DEPTH = 10;
export const MAX_QUERY_FIELDS = 500;

function graphqlOptions(identity: IdentityService): MercuriusDriverConfig {
  const callerOf = (credential: string | undefined) => identity.resolveCaller(credential).catch(() => undefined);
  return {
    autoSchemaFile: true,
    sortSchema: true,
    path: '/graphql',
    graphiql: process.env.NODE_ENV !== 'production',
    queryDepth: MAX_QUERY_DEPTH,
    validationRules: [maxFieldsRule(MAX_QUERY_FIELDS)],
    context: async (request: FastifyRequest): Promise<GraphqlContext> => ({ caller: await callerOf(bearerCredential(request)) }),
    errorFormatter: (execution, context) => {
      const formatted = mercurius.defaultErrorFormatter(execution, context);
      const unauthenticated = execution.errors?.some(
        (error) => (error.extensions as { code?: string } | undefined)?.code === GraphqlErrorCode.Unauthenticated,
      );
      if (!unauthenticated) return formatted;
      (context as { reply?: FastifyReply }).reply?.header('www-authenticate', BEARER_CHALLENGE);
      return { ...formatted, statusCode: 401 };
    },
    subscription: {
      context: async (_socket: unknown, request: FastifyRequest): Promise<GraphqlContext> => ({
        caller: await callerOf(bearerCredential(request)),
      }),
      onConnect: async ({ payload }: { payload?: { authorization?: string } }) => {
        const credential = /^Bearer\s+(\S+)$/i.exec(payload?.authorization ?? '')?.[1];
        if (!credential) return true;
        const caller = await callerOf(credential);
        return caller ? { caller } : false;
      },
    },
  };
}

@Module({
  imports: [
    ClarificationModule,
    TasksModule,
    GraphQLModule.forRootAsync<MercuriusDriverConfig>({
      driver: MercuriusDriver,
      inject: [IdentityService],
      useFactory: graphqlOptions,
    }),
  ],
  providers: RESOLVERS,
})
export class ParleyGraphqlModule {}
