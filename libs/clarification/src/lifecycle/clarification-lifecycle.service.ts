import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction } from '#persistence';
import { type AfterCommit, SessionLifecycle, type SessionLifecycleHooks, SessionRepository } from '#tasks';
import { BundleRepository } from '../bundle/bundle.repository.js';
import type { TouchedBundle } from '../bundle/bundle.types.js';
import { type EndingSignal, LifecycleEventCounter } from '../events/lifecycle-event.counter.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { BundleLifecycleRepository } from './bundle-lifecycle.repository.js';

/**
 * Expire, detach and supersede: what happens to a session's bundles when the session ends, its task
 * is archived, a turn completes while the agent waits, or a newer turn starts. Rows, index, events
 * and signals are written in the transaction of the change; waiters here are woken once it committed
 * (those on other replicas by the signal's NOTIFY).
 */
@Injectable()
export class ClarificationLifecycleService implements SessionLifecycleHooks, OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bundles: BundleRepository,
    private readonly sessions: SessionRepository,
    private readonly signals: BundleSignals,
    private readonly lifecycleEvents: LifecycleEventCounter,
    private readonly lifecycle: SessionLifecycle,
    private readonly bundleLifecycle: BundleLifecycleRepository,
  ) {}

  onModuleInit(): void {
    this.lifecycle.register(this);
  }

  /** Session terminal or task archived: the current pending rows expire. */
  async sessionEnded(sessionId: string, manager: EntityManager): Promise<AfterCommit> {
    const expired = await this.bundleLifecycle.expireSession(sessionId, manager);
    return () => this.announce(expired, 'expired');
  }

  /** A newer turn is about to become current: the bundles active now are superseded (never rewritten). */
  async turnStarting(sessionId: string, manager: EntityManager): Promise<AfterCommit> {
    const superseded = await this.bundleLifecycle.supersedeSession(sessionId, manager);
    return () => this.announce(superseded, 'superseded', false);
  }

  /** The current turn completed while its agent may still wait: the bundle is detached. */
  async turnCompleted(sessionId: string, turnId: string, manager: EntityManager): Promise<AfterCommit> {
    if ((await this.bundles.currentTurnId(sessionId, manager)) !== turnId) return () => undefined;
    const detached = await this.bundleLifecycle.detachSession(sessionId, manager);
    return () => this.announce(detached, 'detached');
  }

  /** The agent's blocking call was aborted or timed out: detach, the bundle stays answerable. */
  async detachAgent(sessionId: string): Promise<void> {
    const detached = await inTransaction(this.dataSource, async (manager) => {
      await this.sessions.lockById(sessionId, manager);
      return this.bundleLifecycle.detachSession(sessionId, manager);
    });
    this.announce(detached, 'detached');
  }

  /** Wakes this process's waiters at once (the signal's NOTIFY tells the other replicas) and counts what this process changed. */
  announce(bundles: TouchedBundle[], signal: EndingSignal, rowsWritten = true): void {
    for (const bundle of bundles) {
      this.signals.dispatch({ pending_id: bundle.pending_id, kind: signal });
      if (bundle.message_ids.length > 0) this.lifecycleEvents.ended(signal, bundle, rowsWritten ? bundle.message_ids : []);
    }
  }
}
