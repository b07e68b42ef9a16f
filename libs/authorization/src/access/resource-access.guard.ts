import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AccessService } from './access.service.js';
import { AuthorizationError } from '../authorization.errors.js';
import { requestCaller } from '../caller/request-caller.js';

type ResourceKind = 'task' | 'session';

interface ResourceRule {
  kind: ResourceKind;
  param: string;
}

const RESOURCE_ACCESS = 'parley:resource-access';

/** Authorizes the route's `:param` (a task or session id) before the handler runs; denial ⇒ 404. */
export const RequireAccess = (kind: ResourceKind, param = 'id') =>
  SetMetadata(RESOURCE_ACCESS, { kind, param } satisfies ResourceRule);

@Injectable()
export class ResourceAccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: AccessService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const rule = this.reflector.get<ResourceRule | undefined>(RESOURCE_ACCESS, context.getHandler());
    if (!rule) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest<{ Params: Record<string, string> }>>();
    const id = request.params[rule.param] ?? '';
    const caller = requestCaller(request);
    const allowed =
      rule.kind === 'task'
        ? await this.access.authorizeTaskAccess(caller, id)
        : await this.access.authorizeSessionAccess(caller, id);
    if (!allowed) throw AuthorizationError.notFound(rule.kind);
    return true;
  }
}
