import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestCredential } from '#authorization';
import { ErrorCode } from '#common';
import { RateLimitError } from './rate-limit.errors.js';
import { rateLimitHeaders } from './rate-limit.headers.js';
import { addressKey } from './rate-limit.keys.js';
import { type RateLimitDecision, RateLimitKind } from './rate-limit.policy.js';
import { RateLimitService } from './rate-limit.service.js';

/** The JSON-RPC error code of a refused MCP request: implementation-defined server error range, 429 in mind. */
export const MCP_RATE_LIMITED = -32029;

const presentsCredential = (request: FastifyRequest): boolean =>
  request.headers.authorization !== undefined || requestCredential(request) !== undefined;

/** Each surface's own error shape for a refusal that happens before any surface code runs. */
export function rateLimitedBody(url: string, message: string): object {
  if (url === '/graphql' || url.startsWith('/graphql?')) return { data: null, errors: [{ message, extensions: { code: ErrorCode.RateLimited } }] };
  if (url === '/mcp' || url.startsWith('/mcp/') || url.startsWith('/mcp?')) return { jsonrpc: '2.0', error: { code: MCP_RATE_LIMITED, message }, id: null };
  return { error: message, code: ErrorCode.RateLimited };
}

/** The browser sign-in route: it takes a token in its body, so it is counted apart from other requests. */
const SIGN_IN_ROUTE = '/api/v1/auth/session';

/**
 * The budgets kept per client address, before anything else runs. Installed as Fastify hooks, so
 * REST, MCP and GraphQL over HTTP are covered alike (the client address is the socket's peer).
 *
 * - Sign-in: every POST /api/v1/auth/session spends one unit.
 * - Guessing tokens: every response 401 to a request that presented a credential (bearer header
 *   or session cookie) spends one unit; once the budget is spent, every request from that address
 *   presenting a credential — valid or not, so a guess that happens to be right is not revealed —
 *   is answered 429 until the window resets. Requests without a credential are unaffected. The
 *   check before each such request is made from memory (RateLimitService.peek) unless this process
 *   saw the address fail in the current window: an authenticated request from an address that has
 *   not been failing costs no round trip for it.
 */
@Injectable()
export class AddressLimitsHooks implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly limits: RateLimitService,
  ) {}

  async onModuleInit(): Promise<void> {
    // An application context without an HTTP server (the CLI) has nothing to guard.
    if (!this.adapterHost.httpAdapter) return;
    await this.limits.shareSpentCredentials();
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', async (request, reply) => {
      if (request.method === 'POST' && request.routeOptions.url === SIGN_IN_ROUTE) {
        await this.refuseUnlessWithin(await this.limits.consume(RateLimitKind.SignIn, addressKey(request.ip)), request, reply);
      }
      if (reply.sent || !presentsCredential(request)) return;
      const failures = await this.limits.peek(RateLimitKind.FailedCredentials, addressKey(request.ip));
      if (failures && !failures.allowed) await this.refuseUnlessWithin(failures, request, reply);
    });
    // Before the 401 is sent, not after: once a client has its refusal, the failure is counted
    // (in PostgreSQL, where it costs a round trip) and, if it spent the budget, announced.
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode === 401 && presentsCredential(request)) {
        await this.limits.consume(RateLimitKind.FailedCredentials, addressKey(request.ip));
      }
      return payload;
    });
  }

  private async refuseUnlessWithin(decision: RateLimitDecision, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    void reply.headers(rateLimitHeaders([decision]));
    if (decision.allowed) return;
    await reply.code(429).send(rateLimitedBody(request.url, new RateLimitError(decision).message));
  }
}
