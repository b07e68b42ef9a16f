import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '#common';
import { AuthorizationError } from '../authorization.errors.js';
import { isAdmin } from './caller.js';
import { IdentityService } from '../identity/identity.service.js';
import { requestCredential, setRequestCaller } from './request-caller.js';

const ADMIN_ONLY = 'parley:admin-only';
const SESSION_AGENT = 'parley:session-agent';

/** Routes only an admin (ADMIN_TOKEN, or anyone while auth is disabled) may use; others get 404. */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

/**
 * Routes a session agent may also call with its session agent token (acting as its session's agent:
 * it reaches its own session's bundles and nothing else). Elsewhere that token is no credential.
 */
export const AcceptsSessionAgent = () => SetMetadata(SESSION_AGENT, true);

/** Resolves the caller of every HTTP request; routes marked @Public() are the explicit exception. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly identity: IdentityService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const credential = requestCredential(request);
    const agentAllowed = this.reflector.getAllAndOverride<boolean>(SESSION_AGENT, targets) === true;
    const caller = agentAllowed ? await this.identity.resolveCallerOrAgent(credential) : await this.identity.resolveCaller(credential);
    setRequestCaller(request, caller);
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !isAdmin(caller)) {
      throw AuthorizationError.notFound('resource');
    }
    return true;
  }
}
