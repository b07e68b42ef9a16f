import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, specifiedRules, validate } from 'graphql';
import mercurius, { type MercuriusContext } from 'mercurius';
import { type Credential, IdentityService, requestCredential } from '../../authorization/src/index.js';
import { ClarificationModule } from '../../clarification/src/index.js';
import { BEARER_CHALLENGE, findUnstorableText, RequestBoundaryError, RequestBoundaryErrorCode } from '../../common/src/index.js';
import { TasksModule } from '../../tasks/src/index.js';
import type { GraphqlContext } from './graphql-caller.js';
import { GraphqlErrorCode } from './graphql-errors.js';
import { maxFieldsRule } from './query-cost.rule.js';
import { RESOLVERS } from './schema-printer.js';
import { storableTextRule } from './storable-text.rule.js';

export const MAX_QUERY_DEPTH = 10;
export const MAX_QUERY_FIELDS = 500;

const validationRules = [maxFieldsRule(MAX_QUERY_FIELDS), storableTextRule];

/**
 * Mercurius executes subscription documents without validating them (only their depth is checked),
 * so a subscription gets the standard rules and the field limit here, before it is executed.
 */
function validateSubscription(schema: GraphQLSchema, document: DocumentNode): void {
  const [error] = validate(schema, document, [...specifiedRules, ...validationRules]);
  if (error) throw error;
}

/**
 * Variables PostgreSQL could not store are refused before execution. Those of a JSON body were
 * already refused by the body parser; this catches the ones of a GET query string.
 */
function refuseUnstorableVariables(_schema: GraphQLSchema, _document: DocumentNode, _context: unknown, variables: unknown): void {
  const found = findUnstorableText(variables, 'variables');
  if (found) throw new RequestBoundaryError(RequestBoundaryErrorCode.UnstorableText, found);
}

/**
 * Errors raised by the /graphql routes themselves — an unparseable body or document, a document
 * that fails validation, the depth or field limit — answered as GraphQL errors
 * (`{data: null, errors: [...]}`), as Mercurius's own handler would. It is set on those routes
 * only: Mercurius's handler would be installed on the whole server and replace REST's bodies.
 */
function graphqlRouteErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const client =
    error instanceof GraphQLError || (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500);
  if (!client) reply.log.error({ err: error }, 'GraphQL request failed');
  const graphqlError = !client
    ? new GraphQLError('internal error', { extensions: { code: GraphqlErrorCode.Internal } })
    : error instanceof GraphQLError
      ? error
      : new GraphQLError(error.message, { originalError: error });
  const execution: ExecutionResult & { errors: readonly GraphQLError[] } = { errors: [graphqlError] };
  const { statusCode, response } = mercurius.defaultErrorFormatter(execution, { reply, app: reply.server } as unknown as MercuriusContext);
  void reply.code(client ? statusCode : 500).send(response);
}

function graphqlOptions(identity: IdentityService): MercuriusDriverConfig {
  const callerOf = (credential: Credential | undefined) => identity.resolveCaller(credential).catch(() => undefined);
  return {
    autoSchemaFile: true,
    sortSchema: true,
    path: '/graphql',
    graphiql: process.env.NODE_ENV !== 'production',
    // Mercurius would otherwise install its error handler on the whole server, replacing the `{error}` bodies of REST.
    errorHandler: false,
    additionalRouteOptions: { errorHandler: graphqlRouteErrorHandler },
    queryDepth: MAX_QUERY_DEPTH,
    validationRules,
    hooks: { preSubscriptionExecution: validateSubscription, preExecution: refuseUnstorableVariables },
    context: async (request: FastifyRequest): Promise<GraphqlContext> => ({ caller: await callerOf(requestCredential(request)) }),
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
        caller: await callerOf(requestCredential(request)),
      }),
      onConnect: async ({ payload }: { payload?: { authorization?: string } }) => {
        const token = /^Bearer\s+(\S+)$/i.exec(payload?.authorization ?? '')?.[1];
        if (!token) return true;
        const caller = await callerOf({ kind: 'bearer', secret: token });
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
