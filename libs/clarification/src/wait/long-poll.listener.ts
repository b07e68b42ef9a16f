import { UNWATCHED } from '#authorization';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import type { ParkedWait, WaitFailure, WaitListener } from './waiter.store.js';

/** Who a long poll answers (the REST surface's raw writer): told once how the wait ended. */
export interface LongPollListener {
  /** The caller went away while the wait was being set up: nothing is parked for it. */
  readonly gone: boolean;
  answered(response: ClarificationResponse): void;
  failed(error: unknown): void;
}

/** Why a parked long poll was ended before its bundle's fate was decided. */
export enum LongPollRevocation {
  /** The caller's credential was revoked (a 401). */
  Credential = 'credential',
  /** The caller no longer sees the bundle — a membership of its workspace was removed (the 404 of a bundle never seen). */
  Access = 'access',
}

/** What an ended wait is answered with (a 504 saying why, a 409 for a deadline that passed, a 401 or 404 once revoked). */
export interface LongPollEndings {
  endedError(pendingId: string, reason: WaitFailure, revoked: LongPollRevocation | undefined): Promise<unknown>;
}

/**
 * A parked long poll (less memory per waiter, docs/benchmarks.md): the waiter's listener, passing its outcome straight to
 * the caller's listener — no promise chain between the waiter and the reply — and the one thing
 * revocation ends.
 */
export class ParkedLongPoll implements WaitListener {
  parked: ParkedWait | undefined;
  stopWatching: () => void = UNWATCHED;
  private revoked: LongPollRevocation | undefined;

  constructor(
    private readonly pendingId: string,
    private readonly listener: LongPollListener,
    private readonly endings: LongPollEndings,
  ) {}

  /** The caller's credential or access was revoked: the wait ends (the answer never reaches it). */
  revoke(why: LongPollRevocation): void {
    this.revoked ??= why;
    this.parked?.abort();
  }

  answered(response: ClarificationResponse): void {
    this.stopWatching();
    this.listener.answered(response);
  }

  ended(reason: WaitFailure): void {
    this.stopWatching();
    void this.endings.endedError(this.pendingId, reason, this.revoked).then(
      (error) => this.listener.failed(error),
      (error: unknown) => this.listener.failed(error),
    );
  }
}
