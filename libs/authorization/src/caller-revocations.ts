import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DatabaseListener } from '#persistence';
import type { Caller } from './caller.js';

/** The NOTIFY channel a revocation (token revoked, browser session ended) is announced on, in its transaction. */
export const REVOCATION_CHANNEL = 'parley_revoked';

/** What `watch` returns for a caller no revocation can reach, and a watch not started yet (shared: a parked long poll holds it). */
export const UNWATCHED = (): void => undefined;

/**
 * What else ends a watch besides the credential's revocation: the caller's removal from the one
 * workspace it is scoped to, or — for what the caller reaches by id, whose workspace the watch does
 * not know — any removal of the caller's memberships, after which `recheck` decides.
 */
export type MembershipWatch = { readonly workspaceId: string } | { readonly recheck: () => void };

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
  private readonly watchers = new Set<{ caller: Caller; membership: MembershipWatch | undefined; onRevoked: () => void }>();

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
        if (revokes(revocation, watcher.caller)) watcher.onRevoked();
        else if (removesMembership(revocation, watcher.caller) && watcher.membership) {
          if ('recheck' in watcher.membership) watcher.membership.recheck();
          else if (revocation.membership?.workspace_id === watcher.membership.workspaceId) watcher.onRevoked();
        }
      }
    });
  }

  /**
   * Calls `onRevoked` (once) when the caller's credential is revoked, or as `membership` says when one
   * of the caller's memberships is removed; the returned function stops watching.
   */
  watch(caller: Caller, onRevoked: () => void, membership?: MembershipWatch): () => void {
    if (caller.kind !== 'user' || (!caller.grant && membership === undefined)) return UNWATCHED;
    const watcher = {
      caller,
      membership,
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

function removesMembership(revocation: Revocation, caller: Caller): boolean {
  return caller.kind === 'user' && revocation.membership?.user_id !== undefined && revocation.membership.user_id === caller.userId;
}
