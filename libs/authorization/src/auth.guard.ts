import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { IS_PUBLIC } from '../../common/src/index.js';
import { AuthorizationError } from './authorization.errors.js';
import { isAdmin } from './caller.js';
import { IdentityService } from './identity.service.js';
import { requestCredential, setRequestCaller } from './request-caller.js';

const ADMIN_ONLY = 'parley:admin-only';

/** Routes only an admin (ADMIN_TOKEN, or anyone while auth is disabled) may use; others get 404. */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

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
    const caller = await this.identity.resolveCaller(requestCredential(request));
    setRequestCaller(request, caller);
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !isAdmin(caller)) {
      throw AuthorizationError.notFound('resource');
    }
    return true;
  }
}
