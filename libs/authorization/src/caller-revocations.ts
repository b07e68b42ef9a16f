import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DatabaseListener } from '#persistence';
import type { Caller } from './caller.js';

/** The NOTIFY channel a revocation (token revoked, browser session ended) is announced on, in its transaction. */
export const REVOCATION_CHANNEL = 'parley_revoked';

/** What `watch` returns for a caller no revocation can reach, and a watch not started yet (shared: a parked long poll holds it). */
export const UNWATCHED = (): void => undefined;

interface Revocation {
  token_id?: string;
  browser_session_id?: string;
  /** A workspace membership removed: what is open for that user scoped to that workspace ends. */
  membership?: { workspace_id?: string; user_id?: string };
}

/**
 * Revocation that bites what is already open: a long poll or a subscription holds the caller it was
 * opened with; when that caller's token is revoked, or its browser session ends — on any replica —
 * whatever it holds is ended, before it can receive another answer or event.
 */
@Injectable()
export class CallerRevocations implements OnModuleInit {
  private readonly watchers = new Set<{ caller: Caller; workspaceId: string | undefined; onRevoked: () => void }>();

  constructor(private readonly listener: DatabaseListener) {}

  onModuleInit(): void {
    this.listener.listen(REVOCATION_CHANNEL, (payload) => {
      let revocation: Revocation;
      try {
        revocation = JSON.parse(payload) as Revocation;
      } catch {
        return;
      }
      for (const watcher of [...this.watchers]) {
        if (revokes(revocation, watcher.caller) || removesScope(revocation, watcher.caller, watcher.workspaceId)) watcher.onRevoked();
      }
    });
  }

  /**
   * Calls `onRevoked` (once) when the caller's credential is revoked — or, for what is scoped to
   * `workspaceId`, when the caller's membership of that workspace is removed; the returned function
   * stops watching.
   */
  watch(caller: Caller, onRevoked: () => void, workspaceId?: string): () => void {
    if (caller.kind !== 'user' || (!caller.grant && workspaceId === undefined)) return UNWATCHED;
    const watcher = {
      caller,
      workspaceId,
      onRevoked: () => {
        this.watchers.delete(watcher);
        onRevoked();
      },
    };
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }
}

function revokes(revocation: Revocation, caller: Caller): boolean {
  if (caller.kind !== 'user' || !caller.grant) return false;
  return (
    (revocation.token_id !== undefined && revocation.token_id === caller.grant.tokenId) ||
    (revocation.browser_session_id !== undefined && revocation.browser_session_id === caller.grant.browserSessionId)
  );
}

function removesScope(revocation: Revocation, caller: Caller, workspaceId: string | undefined): boolean {
  return (
    caller.kind === 'user' &&
    workspaceId !== undefined &&
    revocation.membership?.workspace_id === workspaceId &&
    revocation.membership.user_id === caller.userId
  );
}
