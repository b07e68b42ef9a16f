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
}

/** What a request authenticates with: a bearer token (header) or a browser session id (cookie). */
export type Credential = { readonly kind: 'bearer'; readonly secret: string } | { readonly kind: 'session'; readonly secret: string };

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The token of an `Authorization: Bearer …` header (undefined when absent or of another scheme). */
export function bearerToken(request: Pick<CredentialSource, 'headers'>): string | undefined {
  const header = request.headers.authorization;
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** The session id of a request's `parley_session` cookie (HTTP request or WebSocket upgrade). */
export function sessionCookie(request: CredentialSource): string | undefined {
  return cookieValue(request.headers.cookie, SESSION_COOKIE) || undefined;
}

/** A request's credential: its Authorization header when present (whatever it holds), else its session cookie. */
export function requestCredential(request: CredentialSource): Credential | undefined {
  if (request.headers.authorization) {
    const token = bearerToken(request);
    return token === undefined ? undefined : { kind: 'bearer', secret: token };
  }
  const session = sessionCookie(request);
  return session === undefined ? undefined : { kind: 'session', secret: session };
}
