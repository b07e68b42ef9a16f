import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessRepository } from './access/access.repository.js';
import { AccessService } from './access/access.service.js';
import { AdminController } from './identity/admin.controller.js';
import { AuthGuard } from './caller/auth.guard.js';
import { CallerRevocations } from './caller/caller-revocations.js';
import { BrowserSessionController } from './identity/browser-session.controller.js';
import { CurrentCallerController } from './identity/current-caller.controller.js';
import { BrowserSessionRepository } from './identity/browser-session.repository.js';
import { IdentityRepository } from './identity/identity.repository.js';
import { IdentityService } from './identity/identity.service.js';
import { ResourceAccessGuard } from './access/resource-access.guard.js';
import { MembersController } from './members/members.controller.js';
import { MembershipRepository } from './members/membership.repository.js';
import { MembershipService } from './members/membership.service.js';
import { SessionActorRepository } from './session-actor/session-actor.repository.js';
import { SessionActorService } from './session-actor/session-actor.service.js';

@Global()
@Module({
  controllers: [AdminController, BrowserSessionController, CurrentCallerController, MembersController],
  providers: [
    AccessRepository,
    AccessService,
    CallerRevocations,
    BrowserSessionRepository,
    IdentityRepository,
    IdentityService,
    MembershipRepository,
    MembershipService,
    SessionActorRepository,
    SessionActorService,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_GUARD, useClass: ResourceAccessGuard },
  ],
  exports: [AccessService, CallerRevocations, IdentityService, MembershipService, SessionActorService],
})
export class AuthorizationModule {}
