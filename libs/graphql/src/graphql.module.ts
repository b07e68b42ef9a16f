import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLSchema, specifiedRules, validate } from 'graphql';
import mercurius, { type MercuriusContext } from 'mercurius';
import type WebSocket from 'ws';
import { AuthorizationError, type Credential, IdentityService, requestCredential } from '#authorization';
import { ChatManagementModule } from '#channels';
import { ClarificationModule } from '#clarification';
import { BEARER_CHALLENGE, ErrorCode, findUnstorableText, RequestBoundaryError, RequestBoundaryErrorCode } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { RateLimitService } from '#rate-limit';
import { TasksModule } from '#tasks';
import { WebhookManagementModule } from '#webhooks';
import { connectionInitCredential } from './connection-init.js';
import { checkSourceLimits } from './limits/document-limits.js';
import type { GraphqlContext } from './graphql-caller.js';
import { toGraphqlError } from './graphql-errors.js';
import { spendOperationBudget } from './limits/graphql-rate-limit.js';
import { GraphiqlController } from './graphiql/graphiql.controller.js';
import { checkOperationCost } from './limits/operation-cost.js';
import { maxFieldsRule } from './limits/query-cost.rule.js';
import { checkRequestShape } from './limits/request-shape.js';
import { RESOLVERS } from './schema-printer.js';
import { guardSubscribeMessages } from './limits/subscription-guard.js';
import { storableTextRule } from './limits/storable-text.rule.js';

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

type FormattedErrors = ReturnType<typeof mercurius.defaultErrorFormatter>;

/**
 * GraphQL's own refusals before execution (a document that does not parse or validate, a variable of
 * the wrong type such as `first: 1.5` for an Int) carry no code: they are 400s, so they get
 * VALIDATION_ERROR like every other refusal of a request.
 */
function withValidationCodes(formatted: FormattedErrors): FormattedErrors {
  if (formatted.statusCode !== 400) return formatted;
  const errors = formatted.response.errors?.map((error) =>
    error.extensions?.code === undefined ? { ...error, extensions: { ...error.extensions, code: ErrorCode.ValidationError } } : error,
  );
  return { ...formatted, response: { ...formatted.response, ...(errors ? { errors } : {}) } };
}

/**
 * Errors raised by the /graphql routes themselves — an unparseable body or document, a document
 * that fails validation, the depth, field, token or cost limit, a spent rate limit — answered as GraphQL errors
 * (`{data: null, errors: [...]}`), as Mercurius's own handler would. It is set on those routes
 * only: Mercurius's handler would be installed on the whole server and replace REST's bodies.
 */
function graphqlRouteErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // Already mapped by toGraphqlError (the caller lookup's failure, e.g. the database unavailable): its code and status stand.
  const mapped = error instanceof mercurius.ErrorWithProps;
  const client =
    error instanceof GraphQLError || (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500);
  if (!client && !mapped) reply.log.error({ err: error }, 'GraphQL request failed');
  const graphqlError = mapped
    ? new GraphQLError(error.message, { extensions: (error as mercurius.ErrorWithProps).extensions as Record<string, unknown>, originalError: error })
    : !client
      ? new GraphQLError('internal error', { extensions: { code: ErrorCode.InternalError } })
      : error instanceof GraphQLError
        ? error
        : new GraphQLError(error.message, { originalError: error });
  const execution: ExecutionResult & { errors: readonly GraphQLError[] } = { errors: [graphqlError] };
  const { statusCode, response } = withValidationCodes(
    mercurius.defaultErrorFormatter(execution, { reply, app: reply.server } as unknown as MercuriusContext),
  );
  void reply.code(client || mapped ? statusCode : 500).send(response);
}

interface RequestBody {
  operationName?: unknown;
}

function graphqlOptions(identity: IdentityService, config: AppConfig, limits: RateLimitService): MercuriusDriverConfig {
  // A bad or missing credential leaves the caller unknown (fields then answer UNAUTHENTICATED); any
  // other failure — the database being unreachable — is reported as what it is, never as a 401.
  const callerOf = async (credential: Credential | undefined) => {
    try {
      return await identity.resolveCaller(credential);
    } catch (error) {
      if (error instanceof AuthorizationError) return undefined;
      throw toGraphqlError(error);
    }
  };
  const sourceLimits = { maxTokens: config.graphql.maxTokens, maxDepth: MAX_QUERY_DEPTH };
  const costLimits = { maxCost: config.graphql.maxCost, maxRootLists: config.graphql.maxRootLists };
  return {
    autoSchemaFile: true,
    sortSchema: true,
    path: '/graphql',
    // Served by GraphiqlController, with its assets from the installed packages (Mercurius's loads them from a CDN).
    graphiql: false,
    // Mercurius would otherwise install its error handler on the whole server, replacing the `{error}` bodies of REST.
    errorHandler: false,
    additionalRouteOptions: { errorHandler: graphqlRouteErrorHandler, preValidation: checkRequestShape },
    queryDepth: MAX_QUERY_DEPTH,
    validationRules,
    hooks: {
      preParsing: (_schema, source) => checkSourceLimits(source, sourceLimits),
      preExecution: async (schema, document, context, variables) => {
        const reply = (context as { reply?: FastifyReply }).reply;
        const operationName = (reply?.request.body as RequestBody | undefined)?.operationName ?? (reply?.request.query as RequestBody | undefined)?.operationName;
        const name = typeof operationName === 'string' ? operationName : undefined;
        checkOperationCost(schema, document, variables, name, costLimits);
        const caller = (context as GraphqlContext).caller;
        await spendOperationBudget(limits, { schema, document, operationName: name }, { caller, address: reply?.request.ip ?? '', reply });
        refuseUnstorableVariables(schema, document, context, variables);
      },
      preSubscriptionExecution: validateSubscription,
    },
    context: async (request: FastifyRequest): Promise<GraphqlContext> => ({ caller: await callerOf(requestCredential(request)) }),
    errorFormatter: (execution, context) => {
      const formatted = mercurius.defaultErrorFormatter(execution, context);
      const unauthenticated = execution.errors?.some(
        (error) => (error.extensions as { code?: string } | undefined)?.code === ErrorCode.Unauthenticated,
      );
      if (!unauthenticated) return formatted;
      (context as { reply?: FastifyReply }).reply?.header('www-authenticate', BEARER_CHALLENGE);
      return { ...formatted, statusCode: 401 };
    },
    subscription: {
      context: async (socket: WebSocket, request: FastifyRequest): Promise<GraphqlContext> => {
        guardSubscribeMessages(socket, {
          checkSource: (query) => checkSourceLimits(query, sourceLimits),
          checkDocument: (document, variables, operationName) =>
            checkOperationCost(socketSchema(request), document, variables, operationName, costLimits),
        });
        return { caller: await callerOf(requestCredential(request)) };
      },
      onConnect: async ({ payload }: { payload?: unknown }) => {
        const credential = connectionInitCredential(payload);
        if (!credential) return true;
        const caller = await callerOf({ kind: 'bearer', secret: credential });
        return caller ? { caller } : false;
      },
    },
  };
}

/** The served schema, reached through the Fastify instance Mercurius decorates. */
function socketSchema(request: FastifyRequest): GraphQLSchema {
  return (request.server as unknown as { graphql: { schema: GraphQLSchema } }).graphql.schema;
}

@Module({
  imports: [
    ChatManagementModule,
    ClarificationModule,
    TasksModule,
    WebhookManagementModule,
    GraphQLModule.forRootAsync<MercuriusDriverConfig>({
      driver: MercuriusDriver,
      inject: [IdentityService, APP_CONFIG, RateLimitService],
      useFactory: graphqlOptions,
    }),
  ],
  controllers: [GraphiqlController],
  providers: RESOLVERS,
})
export class ParleyGraphqlModule {}
