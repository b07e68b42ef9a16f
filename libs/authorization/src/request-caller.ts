import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Caller } from './caller.js';

export const SESSION_COOKIE = 'parley_session';

const callers = new WeakMap<object, Caller>();

export function setRequestCaller(request: FastifyRequest, caller: Caller): void {
  callers.set(request.raw, caller);
}

export function requestCaller(request: FastifyRequest): Caller {
  const caller = callers.get(request.raw);
  if (!caller) throw new Error('no caller was resolved for this request');
  return caller;
}

/** The authenticated caller of the current request (set by the AuthGuard). */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller =>
  requestCaller(context.switchToHttp().getRequest<FastifyRequest>()),
);

export function bearerCredential(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const cookies = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies;
  const cookie = cookies?.[SESSION_COOKIE];
  return cookie ? cookie : undefined;
}
