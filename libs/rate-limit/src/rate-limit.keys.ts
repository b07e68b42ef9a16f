import type { Caller } from '#authorization';

/**
 * Whose budget a request spends: a user's or the admin's own; a session agent's is the identity
 * that opened its session (see openerKey); the synthetic identity of AUTH_MODE=disabled is
 * everyone, so there the client address stands for the identity.
 */
export function callerKey(caller: Caller | undefined, address: string): string {
  switch (caller?.kind) {
    case 'user':
      return `user:${caller.userId}`;
    case 'admin':
      return 'admin';
    case 'agent':
      return openerKey(caller, address);
    default:
      return addressKey(address);
  }
}

export const addressKey = (address: string): string => `address:${address}`;

/**
 * The budget a session's agent spends is its opener's (`opened_by` names users and the admin as
 * callerKey does): opening another session never buys a fresh budget, and an opener's own asks and
 * its agents' share one. A session the synthetic identity opened spends its agent's address, as
 * callerKey does; one opened before openers were recorded keeps a budget of its own (no session is
 * opened without an opener any more).
 */
function openerKey(agent: { sessionId: string; openedBy: string }, address: string): string {
  switch (agent.openedBy) {
    case '':
      return `session:${agent.sessionId}`;
    case 'synthetic':
      return addressKey(address);
    default:
      return agent.openedBy;
  }
}
