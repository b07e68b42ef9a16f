import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DatabaseListener } from '#persistence';
import { BrowserSessionRepository } from '../identity/browser-session.repository.js';
import type { Caller } from './caller.js';
import { REVOCATION_CHANNEL } from './revocation.channel.js';

/** What `watch` returns for a caller no revocation can reach, and a watch not started yet (shared: a parked long poll holds it). */
export const UNWATCHED = (): void => undefined;

/**
 * What else ends a watch besides the credential's revocation: the caller's removal from the one
 * workspace it is scoped to, or — for what the caller reaches by id, whose workspace the watch does
 * not know — any removal of the caller's memberships, after which `recheck` decides.
 */
export type MembershipWatch = { readonly workspaceId: string } | { readonly recheck: () => void };

/** setTimeout's longest delay: a browser session that ends later is looked at again then. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

interface Watcher {
  readonly caller: Caller;
  readonly membership: MembershipWatch | undefined;
  readonly onRevoked: () => void;
  /** For a caller signed in by a browser session: the timer set for its end. */
  expiry?: NodeJS.Timeout;
}

interface Revocation {
  token_id?: string;
  browser_session_id?: string;
  /** A workspace membership removed: what is open for that user scoped to that workspace ends. */
  membership?: { workspace_id?: string; user_id?: string };
}

/**
 * Revocation that bites what is already open: a long poll or a subscription holds the caller it was
 * opened with; when that caller's token is revoked, or its browser session ends — signed out on any
 * replica, or expired — whatever it holds is ended, before it can receive another answer or event.
 */
@Injectable()
export class CallerRevocations implements OnModuleInit {
  private readonly watchers = new Set<Watcher>();

  constructor(
    private readonly listener: DatabaseListener,
    private readonly browserSessions: BrowserSessionRepository,
  ) {}

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
   * Calls `onRevoked` (once) when the caller's credential is revoked or its browser session ends, or
   * as `membership` says when one of the caller's memberships is removed; the returned function stops watching.
   */
  watch(caller: Caller, onRevoked: () => void, membership?: MembershipWatch): () => void {
    if (caller.kind !== 'user' || (!caller.grant && membership === undefined)) return UNWATCHED;
    const watcher: Watcher = {
      caller,
      membership,
      onRevoked: () => {
        this.stop(watcher);
        onRevoked();
      },
    };
    this.watchers.add(watcher);
    const grant = caller.grant;
    if (grant?.browserSessionId !== undefined && grant.browserSessionEndsAt !== undefined) {
      this.expireWith(watcher, grant.browserSessionId, grant.browserSessionEndsAt - Date.now());
    }
    return () => this.stop(watcher);
  }

  private stop(watcher: Watcher): void {
    this.watchers.delete(watcher);
    clearTimeout(watcher.expiry);
  }

  /**
   * A browser session also ends by expiring, which no NOTIFY announces. What is open with it does not
   * use it (a subscription would otherwise keep itself alive), so at the end the session had when last
   * seen, it is read again: used meanwhile by a request, it lives on to its new end; else — or when
   * it cannot be read, so its end cannot be shown to have moved — the watcher is revoked.
   */
  private expireWith(watcher: Watcher, browserSessionId: string, endsInMs: number): void {
    watcher.expiry = setTimeout(() => {
      this.browserSessions.endsInMs(browserSessionId).then(
        (left) => {
          if (!this.watchers.has(watcher)) return;
          if (left === undefined) watcher.onRevoked();
          else this.expireWith(watcher, browserSessionId, left);
        },
        () => {
          if (this.watchers.has(watcher)) watcher.onRevoked();
        },
      );
    }, Math.min(Math.max(endsInMs, 0), LONGEST_TIMER_MS));
    watcher.expiry.unref();
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
