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

interface CredentialSource {
  headers: { authorization?: string; cookie?: string };
  cookies?: Record<string, string | undefined>;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** The bearer token of a request (or WebSocket upgrade), else its session cookie. */
export function bearerCredential(request: CredentialSource): string | undefined {
  const header = request.headers.authorization;
  if (header) return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  const cookie = request.cookies?.[SESSION_COOKIE] ?? cookieValue(request.headers.cookie, SESSION_COOKIE);
  return cookie ? cookie : undefined;
}
