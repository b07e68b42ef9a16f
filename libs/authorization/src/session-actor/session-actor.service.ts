import { Injectable } from '@nestjs/common';
import { AuthorizationError } from '../authorization.errors.js';
import { type Caller, callerId } from '../caller/caller.js';
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

  /**
   * Archiving a task ends every session of it, so it is the act of who may act in all of them: the
   * workspace's owner, the identity that opened each of them, or an admin. (Visibility is checked
   * before: a caller who does not see the task gets its "not found".)
   */
  async authorizeArchive(caller: Caller, taskId: string): Promise<void> {
    if (caller.kind !== 'user') return;
    if ((await this.sessions.endsEverySession(taskId, caller.userId, callerId(caller))) === false) {
      throw AuthorizationError.forbidden("only the workspace's owner, the identity that opened each of the task's sessions and admins may archive it");
    }
  }

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
