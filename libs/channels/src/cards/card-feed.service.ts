import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ADMIN_CALLER } from '#authorization';
import { ClarificationError, BundleReadService, type QuestionEventRow, QuestionEventRepository, QuestionEventType } from '#clarification';
import { inTransaction } from '#persistence';
import { ChatLinkRepository } from '../links/chat-link.repository.js';
import { ChatCardRepository } from './chat-card.repository.js';
import { type ChatPlatform, DIRECT_PREFIX } from './chat-platform.js';

const BATCH = 100;

export type FeedStep = 'more' | 'unsettled' | 'done';

/**
 * Follows the question-event feed for one platform and turns it into card work: an ASKED bundle gets
 * a card per destination — each assignee's linked account (a direct message), else its workspace's
 * destination, else the platform's default, else none — and any later event of a bundle (answered,
 * rejected, expired, cancelled, superseded, reminded, escalated) makes its cards want showing again;
 * an escalation also sends a direct message to each new assignee with a linked account.
 * The feed position is a row locked for the step, so one process at a time reads each platform's feed,
 * and the cards it queues commit with the position that read them: an event is turned into work once.
 */
@Injectable()
export class CardFeedService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cards: ChatCardRepository,
    private readonly events: QuestionEventRepository,
    private readonly reader: BundleReadService,
    private readonly links: ChatLinkRepository,
  ) {}

  /**
   * Reads one batch: `more` when a full batch was read, `unsettled` when events are committed behind a
   * transaction still in progress (read again shortly), else `done` (or another process holds the feed).
   */
  step(platform: ChatPlatform): Promise<FeedStep> {
    return inTransaction(this.dataSource, async (manager) => {
      const position = await this.cards.lockFeed(manager, platform.name, () => this.events.settledHead());
      if (position === undefined) return 'done';
      const { events, unsettled } = await this.events.listSettledAfter(position, undefined, BATCH, manager);
      const last = events[events.length - 1];
      if (!last) return unsettled ? 'unsettled' : 'done';
      const asked = events.filter((event) => event.type === String(QuestionEventType.ASKED));
      const escalated = events.filter((event) => event.type === String(QuestionEventType.ESCALATED));
      await this.cards.queue(manager, platform.name, [...(await this.destinations(platform, asked)), ...(await this.reassigned(platform, escalated))]);
      await this.cards.changed([...new Set(events.filter((event) => event.type !== String(QuestionEventType.ASKED)).map((event) => event.pending_id))], manager);
      await this.cards.advanceFeed(manager, platform.name, last.id);
      return events.length === BATCH ? 'more' : unsettled ? 'unsettled' : 'done';
    });
  }

  private async destinations(platform: ChatPlatform, asked: QuestionEventRow[]): Promise<{ pendingId: string; destination: string }[]> {
    if (asked.length === 0) return [];
    const byWorkspace = await this.cards.workspaceDestinations(platform.name, [...new Set(asked.map((event) => event.workspace_id))]);
    const planned: { pendingId: string; destination: string }[] = [];
    for (const event of asked) {
      const direct = await this.directMessagesOf(platform, event.pending_id);
      const fallback = byWorkspace.get(event.workspace_id) ?? platform.defaultDestination;
      const destinations = direct.length > 0 ? direct : fallback ? [fallback] : [];
      planned.push(...destinations.map((destination) => ({ pendingId: event.pending_id, destination })));
    }
    return planned;
  }

  /**
   * An escalation that reassigned a bundle: each new assignee with a linked account gets a direct
   * message (a destination that already has the bundle's card keeps its one card: the outbox's key).
   */
  private async reassigned(platform: ChatPlatform, escalated: QuestionEventRow[]): Promise<{ pendingId: string; destination: string }[]> {
    const planned: { pendingId: string; destination: string }[] = [];
    for (const pendingId of new Set(escalated.map((event) => event.pending_id))) {
      planned.push(...(await this.directMessagesOf(platform, pendingId)).map((destination) => ({ pendingId, destination })));
    }
    return planned;
  }

  /** The direct-message destinations of a routed bundle's current assignees who linked an account on the platform. */
  private async directMessagesOf(platform: ChatPlatform, pendingId: string): Promise<string[]> {
    const assignees = await this.assigneesOf(pendingId);
    const direct = assignees.length === 0 ? [] : await this.links.accountsOf(platform.name, assignees);
    return direct.map((account) => `${DIRECT_PREFIX}${account.platform_user_id}`);
  }

  /** The user ids a routed bundle is assigned to (none for one anyone who sees it may answer, or one gone). */
  private async assigneesOf(pendingId: string): Promise<string[]> {
    try {
      const report = await this.reader.getBundle(ADMIN_CALLER, pendingId);
      return report.routing?.assigned_to.map((user) => user.user_id) ?? [];
    } catch (error) {
      if (error instanceof ClarificationError) return [];
      throw error;
    }
  }
}
