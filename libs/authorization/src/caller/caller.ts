/**
 * Who is calling. Only `user` is scoped to workspaces; the synthetic identity (auth disabled) and
 * admins see everything; a session `agent` (its session agent token, accepted only where a route
 * allows it) may act on its own session's bundles and nothing else.
 */
export type Caller =
  | { readonly kind: 'synthetic' }
  | { readonly kind: 'admin' }
  | { readonly kind: 'user'; readonly userId: string; readonly grant?: CallerGrant }
  | { readonly kind: 'agent'; readonly sessionId: string; readonly taskId: string; readonly openedBy: string };

export const SYNTHETIC_CALLER: Caller = Object.freeze({ kind: 'synthetic' });
export const ADMIN_CALLER: Caller = Object.freeze({ kind: 'admin' });

/** What a user's request was authenticated with: the access token, and the browser session it opened. */
export interface CallerGrant {
  readonly tokenId: string;
  readonly browserSessionId?: string;
  /** When (epoch ms) that browser session ends unless another request uses it: what is open with it ends then. */
  readonly browserSessionEndsAt?: number;
}

export function userCaller(userId: string, grant?: CallerGrant): Caller {
  return grant ? { kind: 'user', userId, grant } : { kind: 'user', userId };
}

export function agentCaller(agent: SessionAgent): Caller {
  return { kind: 'agent', sessionId: agent.sessionId, taskId: agent.taskId, openedBy: agent.openedBy };
}

/** Who a caller is, for a log line: `synthetic`, `admin`, `user:<id>` or `agent:<session id>` (never a credential). */
export function callerId(caller: Caller): string {
  switch (caller.kind) {
    case 'synthetic':
    case 'admin':
      return caller.kind;
    case 'user':
      return `user:${caller.userId}`;
    case 'agent':
      return `agent:${caller.sessionId}`;
  }
}

export function isAdmin(caller: { readonly kind: Caller['kind'] }): boolean {
  return caller.kind === 'synthetic' || caller.kind === 'admin';
}

/** What a caller may reach: everything, the tasks a user may see, or one session. */
export type CallerReach =
  | { readonly kind: 'all' }
  | { readonly kind: 'user'; readonly userId: string; readonly grant?: CallerGrant }
  | { readonly kind: 'session'; readonly sessionId: string };

export function callerReach(caller: Caller): CallerReach {
  switch (caller.kind) {
    case 'synthetic':
    case 'admin':
      return { kind: 'all' };
    case 'user':
      return { kind: 'user', userId: caller.userId };
    case 'agent':
      return { kind: 'session', sessionId: caller.sessionId };
  }
}

/** An agent inside one session, authenticated by that session's agent token (in-session surface only). */
export interface SessionAgent {
  readonly sessionId: string;
  readonly taskId: string;
  /** Who opened the session, as callerId names it ('' for a session opened before that was recorded). */
  readonly openedBy: string;
}
