import type { FastifyReply } from 'fastify';
import { type DocumentNode, getOperationAST, type GraphQLSchema } from 'graphql';
import type { Caller } from '#authorization';
import { callerKey, RateLimitError, rateLimitHeaders, RateLimitKind, type RateLimitService } from '#rate-limit';
import { toGraphqlError } from '../graphql-errors.js';
import { rootFields } from './operation-cost.js';

/**
 * The budget each mutation spends, one unit per root field — the same budget its REST route spends:
 * answers and rejections the answers budget, webhook management the lists budget (as REST's
 * webhook routes). A mutation missing here spends the answers budget, so none is ever free; the
 * unit test checks every mutation of the committed schema is listed.
 */
export const BUDGET_OF_MUTATION: Readonly<Record<string, RateLimitKind>> = {
  answerQuestion: RateLimitKind.Answers,
  rejectQuestion: RateLimitKind.Answers,
  createWebhook: RateLimitKind.Lists,
  setChatDestination: RateLimitKind.Lists,
  updateWebhook: RateLimitKind.Lists,
  deleteWebhook: RateLimitKind.Lists,
  addWorkspaceMember: RateLimitKind.Lists,
  removeWorkspaceMember: RateLimitKind.Lists,
};

/** Every query field reads a list or one bundle; a mutation spends its own budget (above). */
function budgetOf(operation: string, field: string): RateLimitKind | undefined {
  if (operation === 'query') return RateLimitKind.Lists;
  if (operation === 'mutation') return BUDGET_OF_MUTATION[field] ?? RateLimitKind.Answers;
  return undefined;
}

/**
 * Spends the caller's budgets for an operation: one unit per root field it runs, of that field's
 * budget (aliases count; introspection does not). A spent budget is a 429 with `extensions.code` RATE_LIMITED.
 */
export async function spendOperationBudget(
  limits: RateLimitService,
  request: { schema: GraphQLSchema; document: DocumentNode; operationName: string | undefined },
  who: { caller: Caller | undefined; address: string; reply: FastifyReply | undefined },
): Promise<void> {
  const operation = getOperationAST(request.document, request.operationName);
  if (!operation) return;
  const units = new Map<RateLimitKind, number>();
  for (const field of rootFields(request.schema, request.document, operation)) {
    const kind = field.name.startsWith('__') ? undefined : budgetOf(operation.operation, field.name);
    if (kind) units.set(kind, (units.get(kind) ?? 0) + 1);
  }
  if (units.size === 0) return;
  const key = callerKey(who.caller, who.address);
  const decisions = await Promise.all([...units].map(([kind, count]) => limits.consume(kind, key, count)));
  void who.reply?.headers(rateLimitHeaders(decisions));
  const refused = decisions.find((decision) => !decision.allowed);
  if (refused) throw toGraphqlError(new RateLimitError(refused));
}
