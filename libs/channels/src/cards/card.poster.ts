import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ADMIN_CALLER } from '#authorization';
import { BundleReadService, BundleSignals, ClarificationError } from '#clarification';
import { APP_CONFIG, type AppConfig } from '#config';
import { DatabaseListener, ProcessLease } from '#persistence';
import { ChatInteractionRepository, INTERACTION_RETENTION_MS } from '../answer/chat-interaction.repository.js';
import { cardOf } from './card-content.js';
import { CardFeedService, type FeedStep } from './card-feed.service.js';
import { CHAT_CARD_CHANNEL, ChatCardRepository, type ChatCardRow } from './chat-card.repository.js';
import { CHAT_PLATFORMS, type ChatPlatform } from './chat-platform.js';

/** A claimed card stays this process's this long: a process that dies mid-post leaves it to another after it. */
const LEASE_MS = 30_000;
const POLL_EVERY_MS = 1_000;
const UNSETTLED_RETRY_MS = 15;
const CONCURRENCY = 4;
const MAX_ATTEMPTS = 10;
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 5 * 60_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Posts and edits the cards, on every replica where a platform is configured (and does nothing at
 * all where none is: no listener, no timer, no query). Woken by the bundle signals and the card
 * outbox's NOTIFY (with a fallback poll), it first turns new events into card work (CardFeedService),
 * then claims due cards and posts each one new — or edits it to show the bundle as it stands now.
 * A vote writes no question event: its `voted` signal, heard on every replica whichever one recorded
 * it, marks the bundle's cards.
 *
 * Once per destination: a card row exists once per bundle and destination, and is posted by the one
 * process holding its lease. A process that dies after the platform accepted a post but before the
 * post was recorded leaves the lease to expire, and the card is posted again: that second message is
 * the one the row records, and it follows the bundle like any card.
 */
@Injectable()
export class CardPoster implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ChatCards');
  private readonly held = new Set<string>();
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(
    @Inject(CHAT_PLATFORMS) private readonly platforms: ChatPlatform[],
    private readonly feed: CardFeedService,
    private readonly cards: ChatCardRepository,
    private readonly interactions: ChatInteractionRepository,
    private readonly reader: BundleReadService,
    private readonly listener: DatabaseListener,
    private readonly signals: BundleSignals,
    private readonly lease: ProcessLease,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.platforms.length === 0) return;
    this.unsubscribe = this.signals.subscribe(({ kind, pending_id }) => (kind === 'voted' ? this.votedOn(pending_id) : this.wake()));
    this.listener.listen(CHAT_CARD_CHANNEL, () => this.wake());
    this.listener.onReconnect(() => this.wake());
    this.timers = [setInterval(() => this.wake(), POLL_EVERY_MS), setInterval(() => void this.prune(), PRUNE_EVERY_MS)];
    this.timers.forEach((timer) => timer.unref());
    this.wake();
    void this.prune();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.timers.forEach((timer) => clearInterval(timer));
    await this.running;
    await this.cards.release([...this.held], this.lease.id).catch(() => undefined);
  }

  /** The bundle changed (a chat answer won it): its cards are shown again, now. */
  bundleChanged(pendingId: string): void {
    this.marked(pendingId, this.cards.changed([pendingId]));
  }

  /** A vote (which has no question event of its own) was recorded on any replica: its cards show the quorum's progress. */
  private votedOn(pendingId: string): void {
    if (!this.stopped) this.marked(pendingId, this.cards.votedOn(pendingId));
  }

  private marked(pendingId: string, marking: Promise<void>): void {
    void marking
      .then(() => this.wake())
      .catch((error: unknown) => this.logger.warn({ msg: 'cards not marked changed', pending_id: pendingId, err: String(error) }));
  }

  /** Look for work now (an event or a queued card was announced). */
  wake(): void {
    if (this.stopped || this.platforms.length === 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.work()
      .catch((error: unknown) => this.logger.warn({ msg: 'chat cards not posted', err: String(error) }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async work(): Promise<void> {
    for (const platform of this.platforms) {
      let step: FeedStep = 'more';
      while (!this.stopped && step === 'more') step = await this.feed.step(platform);
      // Sooner than the fallback poll: the events behind an open transaction settle in a moment.
      if (step === 'unsettled') setTimeout(() => this.wake(), UNSETTLED_RETRY_MS).unref();
    }
    const byName = new Map(this.platforms.map((platform) => [platform.name, platform]));
    while (!this.stopped) {
      const claimed = await this.cards.claimDue([...byName.keys()], this.lease.id, CONCURRENCY, LEASE_MS);
      claimed.forEach((card) => this.held.add(card.id));
      await Promise.all(claimed.map((card) => this.show(byName.get(card.platform) as ChatPlatform, card).finally(() => this.held.delete(card.id))));
      if (claimed.length < CONCURRENCY) return;
    }
  }

  private async show(platform: ChatPlatform, card: ChatCardRow): Promise<void> {
    try {
      const view = cardOf(await this.reader.getBundle(ADMIN_CALLER, card.pending_id), this.baseUrl());
      if (card.message_ref !== null && card.channel_ref !== null) {
        await platform.update({ channelRef: card.channel_ref, messageRef: card.message_ref }, view);
        await this.cards.shown(card.id, this.lease.id, card.wanted_version, undefined);
      } else {
        const posted = await platform.post(card.destination, view);
        await this.cards.shown(card.id, this.lease.id, card.wanted_version, posted);
      }
    } catch (error) {
      // A bundle that no longer exists has nothing more to show.
      if (error instanceof ClarificationError) {
        await this.cards.shown(card.id, this.lease.id, card.wanted_version, undefined);
        return;
      }
      const retryInMs = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, card.attempts - 1));
      this.logger.warn({ msg: 'chat card not shown', platform: platform.name, card_id: card.id, attempt: card.attempts, err: String(error) });
      await this.cards.failed(card.id, this.lease.id, String(error), retryInMs, MAX_ATTEMPTS);
      if (retryInMs < POLL_EVERY_MS) setTimeout(() => this.wake(), retryInMs).unref();
    }
  }

  /** Interaction ids older than any platform's retries are forgotten. */
  private async prune(): Promise<void> {
    await this.interactions.prune(new Date(Date.now() - INTERACTION_RETENTION_MS)).catch((error: unknown) => {
      this.logger.warn({ msg: 'chat interactions not pruned', err: String(error) });
    });
  }

  private baseUrl(): string {
    return this.config.publicUrl ?? `http://${this.config.host}:${this.config.port}`;
  }
}
