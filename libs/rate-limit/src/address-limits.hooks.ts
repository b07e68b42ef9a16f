import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestCredential } from '#authorization';
import { ErrorCode } from '#common';
import { RateLimitError } from './rate-limit.errors.js';
import { rateLimitHeaders } from './rate-limit.headers.js';
import { addressKey } from './rate-limit.keys.js';
import { RateLimitKind } from './rate-limit.policy.js';
import { RateLimitService } from './rate-limit.service.js';

/** The JSON-RPC error code of a refused MCP request: implementation-defined server error range, 429 in mind. */
export const MCP_RATE_LIMITED = -32029;

const presentsCredential = (request: FastifyRequest): boolean =>
  request.headers.authorization !== undefined || requestCredential(request) !== undefined;

/** Each surface's own error shape, for a refusal made outside the surface's code (a hook). */
export function rateLimitedBody(url: string, message: string): object {
  if (url === '/graphql' || url.startsWith('/graphql?')) return { data: null, errors: [{ message, extensions: { code: ErrorCode.RateLimited } }] };
  if (url === '/mcp' || url.startsWith('/mcp/') || url.startsWith('/mcp?')) return { jsonrpc: '2.0', error: { code: MCP_RATE_LIMITED, message }, id: null };
  return { error: message, code: ErrorCode.RateLimited };
}

/** The browser sign-in route: it takes a token in its body, so it is counted apart from other requests. */
const SIGN_IN_ROUTE = '/api/v1/auth/session';

/**
 * The budgets kept per client address, outside any route. Installed as Fastify hooks, so REST, MCP
 * and GraphQL over HTTP are covered alike. The client address is `request.ip`: the TCP peer, or with
 * TRUST_PROXY the client the trusted proxies name.
 *
 * - Sign-in: every POST /api/v1/auth/session spends one unit, before it runs.
 * - Refused credentials: every 401 answering a request that presented a credential (bearer header
 *   or session cookie) spends one unit, and once the budget is spent such a refusal is answered 429
 *   instead. Only failing credentials are ever refused here: a valid one is served whatever other
 *   requests from its address did, so clients sharing an address (behind one NAT, or one proxy not
 *   named in TRUST_PROXY) cannot lock each other out. What makes guessing hopeless is a
 *   credential's entropy; this budget turns a stream of bad credentials into 429s whose Retry-After
 *   tells the client to back off.
 */
@Injectable()
export class AddressLimitsHooks implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly limits: RateLimitService,
  ) {}

  onModuleInit(): void {
    // An application context without an HTTP server (the CLI) has nothing to guard.
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'POST' || request.routeOptions.url !== SIGN_IN_ROUTE) return;
      const decision = await this.limits.consume(RateLimitKind.SignIn, addressKey(request.ip));
      void reply.headers(rateLimitHeaders([decision]));
      if (!decision.allowed) await reply.code(429).send(rateLimitedBody(request.url, new RateLimitError(decision).message));
    });
    // Before the 401 is sent, not after: the failure is counted (in PostgreSQL, where it costs a
    // round trip) before the client can try again, and the refusal that spends the budget is the 429.
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode !== 401 || !presentsCredential(request)) return payload;
      const decision = await this.limits.consume(RateLimitKind.FailedCredentials, addressKey(request.ip));
      void reply.headers(rateLimitHeaders([decision]));
      if (decision.allowed) return payload;
      reply.removeHeader('www-authenticate');
      void reply.code(429).type('application/json; charset=utf-8');
      return JSON.stringify(rateLimitedBody(request.url, new RateLimitError(decision).message));
    });
  }
}
