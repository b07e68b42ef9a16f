import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import type { ChatPlatformName } from '../chat.types.js';

/** Card work is announced on this channel (queued or changed cards), beside the question events' own. */
export const CHAT_CARD_CHANNEL = 'parley_chat_cards';

export interface ChatCardRow {
  id: string;
  pending_id: string;
  platform: ChatPlatformName;
  destination: string;
  channel_ref: string | null;
  message_ref: string | null;
  wanted_version: number;
  attempts: number;
}

const CHAT_CARD_LOCK_FEED = namedStatement(
  'chat_card_lock_feed',
  ['platform'],
  `SELECT position::text AS position FROM chat_feed WHERE platform = :platform FOR UPDATE SKIP LOCKED`,
);

const CHAT_CARD_FEED_EXISTS = namedStatement(
  'chat_card_feed_exists',
  ['platform'],
  `SELECT 1 AS one FROM chat_feed WHERE platform = :platform`,
);

const CHAT_CARD_START_FEED = namedStatement(
  'chat_card_start_feed',
  ['platform', 'start_position'],
  `INSERT INTO chat_feed (platform, position) VALUES (:platform, :start_position::bigint) ON CONFLICT (platform) DO NOTHING`,
);

const CHAT_CARD_ADVANCE_FEED = namedStatement(
  'chat_card_advance_feed',
  ['platform', 'position'],
  `UPDATE chat_feed SET position = :position::bigint WHERE platform = :platform`,
);

const CHAT_CARD_QUEUE = namedStatement(
  'chat_card_queue',
  ['platform', 'pending_ids', 'destinations'],
  `WITH queued AS (
         INSERT INTO chat_cards (id, pending_id, platform, destination)
         SELECT gen_random_uuid()::text, card.pending_id, :platform, card.destination
           FROM unnest(:pending_ids::text[], :destinations::text[]) AS card(pending_id, destination)
         ON CONFLICT (pending_id, platform, destination) DO NOTHING RETURNING id)
       SELECT pg_notify('${CHAT_CARD_CHANNEL}', '') FROM queued LIMIT 1`,
);

const CHAT_CARD_CHANGED = namedStatement(
  'chat_card_changed',
  ['pending_ids'],
  `WITH bumped AS (
         UPDATE chat_cards SET wanted_version = wanted_version + 1, next_attempt_at = clock_timestamp(), attempts = 0
          WHERE pending_id = ANY(:pending_ids::text[]) RETURNING id)
       SELECT pg_notify('${CHAT_CARD_CHANNEL}', '') FROM bumped LIMIT 1`,
);

const CHAT_CARD_VOTED_ON = namedStatement(
  'chat_card_voted_on',
  ['pending_id'],
  `WITH bumped AS (
         UPDATE chat_cards SET wanted_version = wanted_version + 1, next_attempt_at = clock_timestamp(), attempts = 0
          WHERE pending_id = :pending_id AND (shown_version >= wanted_version OR lease_owner IS NOT NULL) RETURNING id)
       SELECT pg_notify('${CHAT_CARD_CHANNEL}', '') FROM bumped LIMIT 1`,
);

const CHAT_CARD_CLAIM_DUE = namedStatement(
  'chat_card_claim_due',
  ['owner', 'limit', 'lease_ms', 'platforms'],
  `WITH picked AS (
         SELECT id FROM chat_cards
          WHERE shown_version < wanted_version AND next_attempt_at <= clock_timestamp() AND platform = ANY(:platforms::text[])
            AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp())
          ORDER BY next_attempt_at LIMIT :limit FOR UPDATE SKIP LOCKED)
       UPDATE chat_cards c SET lease_owner = :owner, attempts = c.attempts + 1,
              lease_expires_at = clock_timestamp() + make_interval(secs => :lease_ms::double precision / 1000)
         FROM picked WHERE c.id = picked.id
       RETURNING c.id, c.pending_id, c.platform, c.destination, c.channel_ref, c.message_ref, c.wanted_version, c.attempts`,
);

const CHAT_CARD_SHOWN = namedStatement(
  'chat_card_shown',
  ['id', 'owner', 'version', 'channel_ref', 'message_ref'],
  `UPDATE chat_cards SET shown_version = GREATEST(shown_version, :version), channel_ref = COALESCE(:channel_ref, channel_ref), message_ref = COALESCE(:message_ref, message_ref),
              lease_owner = NULL, lease_expires_at = NULL, last_error = NULL, attempts = 0
        WHERE id = :id AND lease_owner = :owner RETURNING id`,
);

const CHAT_CARD_FAILED = namedStatement(
  'chat_card_failed',
  ['id', 'owner', 'error', 'retry_in_ms', 'max_attempts'],
  `UPDATE chat_cards SET lease_owner = NULL, lease_expires_at = NULL, last_error = :error,
              next_attempt_at = clock_timestamp() + make_interval(secs => :retry_in_ms::double precision / 1000),
              shown_version = CASE WHEN attempts >= :max_attempts THEN wanted_version ELSE shown_version END
        WHERE id = :id AND lease_owner = :owner`,
);

const CHAT_CARD_RELEASE = namedStatement(
  'chat_card_release',
  ['ids', 'owner'],
  `UPDATE chat_cards SET lease_owner = NULL, lease_expires_at = NULL, attempts = GREATEST(attempts - 1, 0)
        WHERE id = ANY(:ids::text[]) AND lease_owner = :owner`,
);

const CHAT_CARD_WORKSPACE_DESTINATIONS = namedStatement(
  'chat_card_workspace_destinations',
  ['platform', 'workspace_ids'],
  `SELECT workspace_id, destination FROM chat_destinations WHERE platform = :platform AND workspace_id = ANY(:workspace_ids::text[])`,
);

/** The statements ChatCardRepository runs, for `npm run sql:write`. */
export const chatCardStatements: readonly NamedStatement[] = [
  CHAT_CARD_LOCK_FEED,
  CHAT_CARD_FEED_EXISTS,
  CHAT_CARD_START_FEED,
  CHAT_CARD_ADVANCE_FEED,
  CHAT_CARD_QUEUE,
  CHAT_CARD_CHANGED,
  CHAT_CARD_VOTED_ON,
  CHAT_CARD_CLAIM_DUE,
  CHAT_CARD_SHOWN,
  CHAT_CARD_FAILED,
  CHAT_CARD_RELEASE,
  CHAT_CARD_WORKSPACE_DESTINATIONS,
];

/**
 * The chat outbox: `chat_feed` (how far each platform's poster has read the question events) and
 * `chat_cards` (one card per bundle and destination). A card is due while the version it shows is
 * below the one wanted; a claim takes due cards with FOR UPDATE SKIP LOCKED under this process's lease
 * mark until an expiry, so each card is posted by one process at a time, and every completion is
 * fenced by that mark.
 */
@Injectable()
export class ChatCardRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The platform's feed position, locked for this transaction — or undefined while another process holds it. */
  async lockFeed(manager: EntityManager, platform: ChatPlatformName, startAt: () => Promise<string>): Promise<string | undefined> {
    const row = await CHAT_CARD_LOCK_FEED.row<{ position: string }>(manager, { platform });
    if (row) return row.position;
    const exists = await CHAT_CARD_FEED_EXISTS.row<{ one: number }>(manager, { platform });
    if (exists) return undefined;
    // The first start: bundles asked before chat was configured are not posted.
    await CHAT_CARD_START_FEED.rows(manager, { platform, start_position: await startAt() });
    return undefined;
  }

  async advanceFeed(manager: EntityManager, platform: ChatPlatformName, position: string): Promise<void> {
    await CHAT_CARD_ADVANCE_FEED.rows(manager, { platform, position });
  }

  /** Queues a card per destination (once: a bundle's card for a destination exists at most once). */
  async queue(manager: EntityManager, platform: ChatPlatformName, cards: { pendingId: string; destination: string }[]): Promise<void> {
    if (cards.length === 0) return;
    await CHAT_CARD_QUEUE.rows(manager, {
      platform,
      pending_ids: cards.map((card) => card.pendingId),
      destinations: cards.map((card) => card.destination),
    });
  }

  /** The bundles changed: their cards want showing again. */
  async changed(pendingIds: readonly string[], executor: EntityManager | DataSource = this.dataSource): Promise<void> {
    if (pendingIds.length === 0) return;
    await CHAT_CARD_CHANGED.rows(executor, { pending_ids: [...pendingIds] });
  }

  /**
   * A vote changed the bundle: its cards want showing again — all but those already due and not being
   * drawn, which show the vote when they are. Every replica that shows cards hears the same vote, so
   * the later ones find the cards due and leave them: one redraw per vote, not one per replica (a card
   * claimed in between is marked again, and edited once more to show the same).
   */
  async votedOn(pendingId: string): Promise<void> {
    await CHAT_CARD_VOTED_ON.rows(this.dataSource, { pending_id: pendingId });
  }

  claimDue(platforms: readonly ChatPlatformName[], owner: string, limit: number, leaseMs: number): Promise<ChatCardRow[]> {
    return CHAT_CARD_CLAIM_DUE.rows<ChatCardRow>(this.dataSource, { owner, limit, lease_ms: leaseMs, platforms: [...platforms] });
  }

  /** The card shows `version` now (posted, when it was new: where). False when this process no longer held it. */
  async shown(id: string, owner: string, version: number, posted: { channelRef: string; messageRef: string } | undefined): Promise<boolean> {
    const rows = await CHAT_CARD_SHOWN.rows<{ id: string }>(this.dataSource, {
      id,
      owner,
      version,
      channel_ref: posted?.channelRef ?? null,
      message_ref: posted?.messageRef ?? null,
    });
    return rows.length > 0;
  }

  /** The attempt failed: tried again later — or given up after `maxAttempts` (the card stays as it last was). */
  async failed(id: string, owner: string, error: string, retryInMs: number, maxAttempts: number): Promise<void> {
    await CHAT_CARD_FAILED.rows(this.dataSource, {
      id,
      owner,
      error: error.slice(0, 500),
      retry_in_ms: retryInMs,
      max_attempts: maxAttempts,
    });
  }

  /** Cards this process holds go back at shutdown, their attempt not counted. */
  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await CHAT_CARD_RELEASE.rows(this.dataSource, { ids: [...ids], owner });
  }

  /** A workspace's destination on a platform, if its owner set one. */
  async workspaceDestinations(platform: ChatPlatformName, workspaceIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await CHAT_CARD_WORKSPACE_DESTINATIONS.rows<{ workspace_id: string; destination: string }>(this.dataSource, {
      platform,
      workspace_ids: [...workspaceIds],
    });
    return new Map(rows.map((row) => [row.workspace_id, row.destination]));
  }
}
