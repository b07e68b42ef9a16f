import type { Caller } from '#authorization';

/**
 * Whose budget a request spends: a user's or the admin's own; the synthetic identity of
 * AUTH_MODE=disabled is everyone, so there the client address stands for the identity.
 */
export function callerKey(caller: Caller | undefined, address: string): string {
  switch (caller?.kind) {
    case 'user':
      return `user:${caller.userId}`;
    case 'admin':
      return 'admin';
    default:
      return addressKey(address);
  }
}

export const addressKey = (address: string): string => `address:${address}`;

export const sessionAgentKey = (sessionId: string): string => `session:${sessionId}`;
