/** Who is calling. Only `user` is scoped; the synthetic identity (auth disabled) and admins see everything. */
export type Caller =
  | { readonly kind: 'synthetic' }
  | { readonly kind: 'admin' }
  | { readonly kind: 'user'; readonly userId: string };

export const SYNTHETIC_CALLER: Caller = Object.freeze({ kind: 'synthetic' });
export const ADMIN_CALLER: Caller = Object.freeze({ kind: 'admin' });

export function userCaller(userId: string): Caller {
  return { kind: 'user', userId };
}

/** The user id a scoped caller is limited to, or undefined for an unscoped caller. */
export function callerScope(caller: Caller): string | undefined {
  return caller.kind === 'user' ? caller.userId : undefined;
}

export function isAdmin(caller: Caller): boolean {
  return caller.kind !== 'user';
}

/** An agent inside one session, authenticated by that session's agent token (in-session surface only). */
export interface SessionAgent {
  readonly sessionId: string;
  readonly taskId: string;
}
