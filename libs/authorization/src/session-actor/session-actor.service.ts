import { Injectable } from '@nestjs/common';
import { AuthorizationError } from '../authorization.errors.js';
import { type Caller, callerId } from '../caller.js';
import { SessionActorRepository } from './session-actor.repository.js';

/**
 * Asking is the session's own act: only its agent (its agent token), the identity that opened it
 * and admins ask in it, cancel its bundles, change its state or open and complete its turns. Seeing
 * a session is not a right to act in it — routing decides who may answer, and a receipt names who
 * asked — so a caller who sees the session but may not act is refused (403), and one who does not
 * see it gets the session's "not found".
 */
@Injectable()
export class SessionActorService {
  constructor(private readonly sessions: SessionActorRepository) {}

  async authorizeAct(caller: Caller, sessionId: string): Promise<void> {
    if (caller.kind === 'agent') {
      if (caller.sessionId !== sessionId) throw AuthorizationError.notFound('session');
      return;
    }
    const standing = await this.sessions.standing(sessionId, caller.kind === 'user' ? caller.userId : null);
    if (!standing?.visible) throw AuthorizationError.notFound('session');
    if (caller.kind === 'admin' || caller.kind === 'synthetic') return;
    if (standing.opened_by !== callerId(caller)) {
      throw AuthorizationError.forbidden("only the session's agent, the identity that opened the session and admins may act in it");
    }
  }
}
