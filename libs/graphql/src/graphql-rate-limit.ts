import type { FastifyReply } from 'fastify';
import { type DocumentNode, getOperationAST, type GraphQLSchema } from 'graphql';
import type { Caller } from '#authorization';
import { callerKey, RateLimitError, rateLimitHeaders, RateLimitKind, type RateLimitService } from '#rate-limit';
import { toGraphqlError } from './graphql-errors.js';
import { rootFields } from './operation-cost.js';

/** Every mutation answers or rejects; every query field reads a list or one bundle. */
const KIND_OF_OPERATION: Record<string, RateLimitKind | undefined> = { query: RateLimitKind.Lists, mutation: RateLimitKind.Answers };

/**
 * Spends the caller's budget for an operation: one unit per root field it runs (aliases count;
 * introspection does not). A spent budget is a 429 with `extensions.code` RATE_LIMITED.
 */
export async function spendOperationBudget(
  limits: RateLimitService,
  request: { schema: GraphQLSchema; document: DocumentNode; operationName: string | undefined },
  who: { caller: Caller | undefined; address: string; reply: FastifyReply | undefined },
): Promise<void> {
  const operation = getOperationAST(request.document, request.operationName);
  const kind = operation ? KIND_OF_OPERATION[operation.operation] : undefined;
  if (!operation || !kind) return;
  const units = rootFields(request.schema, request.document, operation).filter((field) => !field.name.startsWith('__')).length;
  if (units === 0) return;
  const decision = await limits.consume(kind, callerKey(who.caller, who.address), units);
  void who.reply?.headers(rateLimitHeaders([decision]));
  if (!decision.allowed) throw toGraphqlError(new RateLimitError(decision));
}
