import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { requestCaller } from '#authorization';
import { RateLimitError } from './rate-limit.errors.js';
import { rateLimitHeaders } from './rate-limit.headers.js';
import { addressKey, callerKey } from './rate-limit.keys.js';
import { isPerAddress, type RateLimitKind } from './rate-limit.policy.js';
import { RateLimitService } from './rate-limit.service.js';
import { RATE_LIMITED } from './rate-limited.decorator.js';

/**
 * REST routes marked @RateLimited spend the caller's budget here, after authentication (guards run
 * first) — or the client address's, for the budgets kept per address (a public route has no caller).
 */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimitService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const kind = this.reflector.getAllAndOverride<RateLimitKind | undefined>(RATE_LIMITED, [context.getHandler(), context.getClass()]);
    if (kind === undefined) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = isPerAddress(kind) ? addressKey(request.ip) : callerKey(requestCaller(request), request.ip);
    const decision = await this.limits.consume(kind, key);
    void context.switchToHttp().getResponse<FastifyReply>().headers(rateLimitHeaders([decision]));
    if (!decision.allowed) throw new RateLimitError(decision);
    return next.handle();
  }
}
