import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Work to run once the transaction that produced it has committed (wake waiters, publish events). */
export type AfterCommit = () => void;

/**
 * Reactions of other modules to session lifecycle changes, run inside the transaction that makes
 * the change (with the session rows locked). The clarification module registers expire, supersede
 * and detach here, so a bundle can never outlive the state change that ends it.
 */
export interface SessionLifecycleHooks {
  sessionEnded(sessionId: string, manager: EntityManager): Promise<AfterCommit>;
  /** Runs just before a newer turn is inserted (the current bundles are about to be superseded). */
  turnStarting(sessionId: string, manager: EntityManager): Promise<AfterCommit>;
  turnCompleted(sessionId: string, turnId: string, manager: EntityManager): Promise<AfterCommit>;
}

@Injectable()
export class SessionLifecycle {
  private readonly hooks: SessionLifecycleHooks[] = [];

  register(hooks: SessionLifecycleHooks): void {
    this.hooks.push(hooks);
  }

  async sessionEnded(sessionId: string, manager: EntityManager): Promise<AfterCommit[]> {
    return this.each((hooks) => hooks.sessionEnded(sessionId, manager));
  }

  async turnStarting(sessionId: string, manager: EntityManager): Promise<AfterCommit[]> {
    return this.each((hooks) => hooks.turnStarting(sessionId, manager));
  }

  async turnCompleted(sessionId: string, turnId: string, manager: EntityManager): Promise<AfterCommit[]> {
    return this.each((hooks) => hooks.turnCompleted(sessionId, turnId, manager));
  }

  private async each(run: (hooks: SessionLifecycleHooks) => Promise<AfterCommit>): Promise<AfterCommit[]> {
    const afterCommit: AfterCommit[] = [];
    for (const hooks of this.hooks) afterCommit.push(await run(hooks));
    return afterCommit;
  }
}

export function runAfterCommit(actions: AfterCommit[]): void {
  actions.forEach((action) => action());
}
