import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { EventBus, type ParleyEventName } from '../../common/src/index.js';
import { inTransaction } from '../../persistence/src/index.js';
import { type AfterCommit, SessionLifecycle, type SessionLifecycleHooks, SessionRepository } from '../../tasks/src/index.js';
import { BundleRepository } from './bundle.repository.js';
import type { BundleRow } from './clarification.types.js';
import { WaiterStore } from './waiter.store.js';

type LifecycleEvent = Extract<ParleyEventName, 'clarification.expired' | 'clarification.detached' | 'clarification.superseded'>;

/**
 * Expire, detach and supersede: what happens to a session's bundles when the session ends, its
 * task is archived, a turn completes while the agent waits, or a newer turn starts.
 */
@Injectable()
export class ClarificationLifecycleService implements SessionLifecycleHooks, OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bundles: BundleRepository,
    private readonly sessions: SessionRepository,
    private readonly waiters: WaiterStore,
    private readonly events: EventBus,
    private readonly lifecycle: SessionLifecycle,
  ) {}

  onModuleInit(): void {
    this.lifecycle.register(this);
  }

  /** Session terminal or task archived: the current pending rows expire; waiters are cancelled. */
  async sessionEnded(sessionId: string, manager: EntityManager): Promise<AfterCommit> {
    const expired = await this.bundles.expireSession(sessionId, manager);
    const taskId = await this.taskOf(sessionId, manager);
    return () => this.closeSession(sessionId, taskId, 'clarification.expired', expired);
  }

  /**
   * A newer turn is about to become current: the bundles active now are superseded (never
   * rewritten) — whether or not an agent waits on them in this process.
   */
  async turnStarting(sessionId: string, manager: EntityManager): Promise<AfterCommit> {
    const superseded = await this.bundles.findActiveRowsOfSession(sessionId, manager);
    const taskId = await this.taskOf(sessionId, manager);
    return () => this.closeSession(sessionId, taskId, 'clarification.superseded', superseded, false);
  }

  /** The current turn completed while its agent may still wait: the bundle is detached. */
  async turnCompleted(sessionId: string, turnId: string, manager: EntityManager): Promise<AfterCommit> {
    if ((await this.bundles.currentTurnId(sessionId, manager)) !== turnId) return () => undefined;
    const detached = await this.bundles.detachSession(sessionId, manager);
    const taskId = await this.taskOf(sessionId, manager);
    return () => this.closeSession(sessionId, taskId, 'clarification.detached', detached);
  }

  /** The agent's blocking call was aborted or timed out: detach, the bundle stays answerable. */
  async detachAgent(sessionId: string): Promise<void> {
    const { detached, taskId } = await inTransaction(this.dataSource, async (manager) => {
      const session = await this.sessions.lockById(sessionId, manager);
      return { detached: await this.bundles.detachSession(sessionId, manager), taskId: session?.task_id ?? '' };
    });
    this.closeSession(sessionId, taskId, 'clarification.detached', detached);
  }

  private async taskOf(sessionId: string, manager: EntityManager): Promise<string> {
    return (await this.sessions.findById(sessionId, manager))?.task_id ?? '';
  }

  /** Wakes the session's waiters, publishes `event` per bundle, and a message update for rows written. */
  private closeSession(sessionId: string, taskId: string, event: LifecycleEvent, rows: BundleRow[], rowsWritten = true): void {
    const pendingIds = new Set([...this.waiters.cancelSession(sessionId), ...rows.map((row) => row.metadata.pending_id ?? '')]);
    for (const pendingId of pendingIds) {
      if (pendingId) this.events.publish(event, { pending_id: pendingId, session_id: sessionId, task_id: taskId });
    }
    if (rowsWritten && rows.length > 0) {
      this.events.publish('session.message.updated', {
        session_id: sessionId,
        task_id: taskId,
        message_ids: rows.map((row) => row.id),
      });
    }
  }
}
