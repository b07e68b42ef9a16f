import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DEFAULT_PENDING_LIMIT, MAX_PENDING_LIMIT } from '#clarification';
import { pageLimit } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { MCP_RATE_LIMITED, RateLimitError, rateLimitHeaders, RateLimitKind, RateLimitService } from '#rate-limit';
import { ANSWER_TOOL, LIST_PENDING_TOOL, LIST_TASKS_TOOL } from './external/external-tools.js';
import { refuseMcpRequest } from './transport/mcp-http.js';
import { ASK_TOOL } from './session/session-tools.js';

/** JSON-RPC "Invalid Request": the request as a whole is refused, none of its messages ran. */
const INVALID_REQUEST = -32600;

interface ToolCall {
  name: unknown;
  args: Record<string, unknown>;
}

function toolCallsOf(messages: readonly unknown[]): ToolCall[] {
  return messages.flatMap((message) => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
    if (method !== 'tools/call') return [];
    const args = params?.arguments;
    return [{ name: params?.name, args: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {} }];
  });
}

/**
 * Rows a call may return, as its list would size the page: the task list by the one page rule (a
 * `limit` it refuses returns no row), the pending list by L10 (absent or below 1 ⇒ default, above ⇒ the cap).
 */
function pageRows(call: ToolCall): number {
  const limit = call.args.limit;
  if (call.name === LIST_TASKS_TOOL) {
    if (limit !== undefined && typeof limit !== 'number') return 0;
    return pageLimit(limit) ?? 0;
  }
  if (call.name !== LIST_PENDING_TOOL) return 0;
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit < 1) return DEFAULT_PENDING_LIMIT;
  return Math.min(Math.floor(limit), MAX_PENDING_LIMIT);
}

const KIND_OF_TOOL: Record<string, RateLimitKind> = {
  [ANSWER_TOOL]: RateLimitKind.Answers,
  [LIST_PENDING_TOOL]: RateLimitKind.Lists,
  [LIST_TASKS_TOOL]: RateLimitKind.Lists,
  [ASK_TOOL]: RateLimitKind.Asks,
};

/**
 * What an MCP HTTP request may cost, checked before any of its messages runs: the number of
 * JSON-RPC messages (MCP_MAX_BATCH), the rows its list calls may return together
 * (MCP_MAX_PAGE_BUDGET), and the caller's rate-limit budgets, one unit per tool call.
 */
@Injectable()
export class McpAdmission {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: RateLimitService,
  ) {}

  /** Answers the refusal itself and returns false, or returns true when the request may be served. */
  async admit(body: unknown, rateLimitKey: string, reply: FastifyReply): Promise<boolean> {
    const messages = Array.isArray(body) ? body : [body];
    const { maxBatch, maxPageBudget } = this.config.mcp;
    if (messages.length > maxBatch) {
      refuseMcpRequest(reply, 400, INVALID_REQUEST, `a batch of ${messages.length} messages exceeds the limit of ${maxBatch} (MCP_MAX_BATCH)`);
      return false;
    }
    const calls = toolCallsOf(messages);
    const rows = calls.reduce((total, call) => total + pageRows(call), 0);
    if (rows > maxPageBudget) {
      refuseMcpRequest(
        reply,
        400,
        INVALID_REQUEST,
        `the list calls of this request may return ${rows} rows, above the page budget of ${maxPageBudget} per request (MCP_MAX_PAGE_BUDGET)`,
      );
      return false;
    }
    const units = new Map<RateLimitKind, number>();
    for (const call of calls) {
      const kind = typeof call.name === 'string' ? KIND_OF_TOOL[call.name] : undefined;
      if (kind) units.set(kind, (units.get(kind) ?? 0) + 1);
    }
    const decisions = await Promise.all([...units].map(([kind, count]) => this.limits.consume(kind, rateLimitKey, count)));
    void reply.headers(rateLimitHeaders(decisions));
    const refused = decisions.find((decision) => !decision.allowed);
    if (refused) {
      refuseMcpRequest(reply, 429, MCP_RATE_LIMITED, new RateLimitError(refused).message);
      return false;
    }
    return true;
  }
}
