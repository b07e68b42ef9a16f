import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRow, queryRows } from '#persistence';
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
    const row = await queryRow<{ position: string }>(manager, `SELECT position::text AS position FROM chat_feed WHERE platform = $1 FOR UPDATE SKIP LOCKED`, [platform]);
    if (row) return row.position;
    const exists = await queryRow<{ one: number }>(manager, `SELECT 1 AS one FROM chat_feed WHERE platform = $1`, [platform]);
    if (exists) return undefined;
    // The first start: bundles asked before chat was configured are not posted.
    await manager.query(`INSERT INTO chat_feed (platform, position) VALUES ($1, $2::bigint) ON CONFLICT (platform) DO NOTHING`, [platform, await startAt()]);
    return undefined;
  }

  async advanceFeed(manager: EntityManager, platform: ChatPlatformName, position: string): Promise<void> {
    await manager.query(`UPDATE chat_feed SET position = $2::bigint WHERE platform = $1`, [platform, position]);
  }

  /** Queues a card per destination (once: a bundle's card for a destination exists at most once). */
  async queue(manager: EntityManager, platform: ChatPlatformName, cards: { pendingId: string; destination: string }[]): Promise<void> {
    if (cards.length === 0) return;
    await manager.query(
      `WITH queued AS (
         INSERT INTO chat_cards (id, pending_id, platform, destination)
         SELECT gen_random_uuid()::text, card.pending_id, $1, card.destination
           FROM unnest($2::text[], $3::text[]) AS card(pending_id, destination)
         ON CONFLICT (pending_id, platform, destination) DO NOTHING RETURNING id)
       SELECT pg_notify('${CHAT_CARD_CHANNEL}', '') FROM queued LIMIT 1`,
      [platform, cards.map((card) => card.pendingId), cards.map((card) => card.destination)],
    );
  }

  /** The bundles changed: their cards want showing again. */
  async changed(pendingIds: readonly string[], executor: EntityManager | DataSource = this.dataSource): Promise<void> {
    if (pendingIds.length === 0) return;
    await executor.query(
      `WITH bumped AS (
         UPDATE chat_cards SET wanted_version = wanted_version + 1, next_attempt_at = clock_timestamp(), attempts = 0
          WHERE pending_id = ANY($1::text[]) RETURNING id)
       SELECT pg_notify('${CHAT_CARD_CHANNEL}', '') FROM bumped LIMIT 1`,
      [[...pendingIds]],
    );
  }

  /**
   * A vote changed the bundle: its cards want showing again — all but those already due and not being
   * drawn, which show the vote when they are. Every replica that shows cards hears the same vote, so
   * the later ones find the cards due and leave them: one redraw per vote, not one per replica (a card
   * claimed in between is marked again, and edited once more to show the same).
   */
  async votedOn(pendingId: string): Promise<void> {
    await this.dataSource.query(
      `WITH bumped AS (
         UPDATE chat_cards SET wanted_version = wanted_version + 1, next_attempt_at = clock_timestamp(), attempts = 0
          WHERE pending_id = $1 AND (shown_version >= wanted_version OR lease_owner IS NOT NULL) RETURNING id)
       SELECT pg_notify('${CHAT_CARD_CHANNEL}', '') FROM bumped LIMIT 1`,
      [pendingId],
    );
  }

  claimDue(platforms: readonly ChatPlatformName[], owner: string, limit: number, leaseMs: number): Promise<ChatCardRow[]> {
    return queryRows<ChatCardRow>(
      this.dataSource,
      `WITH picked AS (
         SELECT id FROM chat_cards
          WHERE shown_version < wanted_version AND next_attempt_at <= clock_timestamp() AND platform = ANY($4::text[])
            AND (lease_expires_at IS NULL OR lease_expires_at < clock_timestamp())
          ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE chat_cards c SET lease_owner = $1, attempts = c.attempts + 1,
              lease_expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
         FROM picked WHERE c.id = picked.id
       RETURNING c.id, c.pending_id, c.platform, c.destination, c.channel_ref, c.message_ref, c.wanted_version, c.attempts`,
      [owner, limit, leaseMs, [...platforms]],
    );
  }

  /** The card shows `version` now (posted, when it was new: where). False when this process no longer held it. */
  async shown(id: string, owner: string, version: number, posted: { channelRef: string; messageRef: string } | undefined): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `UPDATE chat_cards SET shown_version = GREATEST(shown_version, $3), channel_ref = COALESCE($4, channel_ref), message_ref = COALESCE($5, message_ref),
              lease_owner = NULL, lease_expires_at = NULL, last_error = NULL, attempts = 0
        WHERE id = $1 AND lease_owner = $2 RETURNING id`,
      [id, owner, version, posted?.channelRef ?? null, posted?.messageRef ?? null],
    );
    return rows.length > 0;
  }

  /** The attempt failed: tried again later — or given up after `maxAttempts` (the card stays as it last was). */
  async failed(id: string, owner: string, error: string, retryInMs: number, maxAttempts: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE chat_cards SET lease_owner = NULL, lease_expires_at = NULL, last_error = $3,
              next_attempt_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000),
              shown_version = CASE WHEN attempts >= $5 THEN wanted_version ELSE shown_version END
        WHERE id = $1 AND lease_owner = $2`,
      [id, owner, error.slice(0, 500), retryInMs, maxAttempts],
    );
  }

  /** Cards this process holds go back at shutdown, their attempt not counted. */
  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE chat_cards SET lease_owner = NULL, lease_expires_at = NULL, attempts = GREATEST(attempts - 1, 0)
        WHERE id = ANY($1::text[]) AND lease_owner = $2`,
      [[...ids], owner],
    );
  }

  /** A workspace's destination on a platform, if its owner set one. */
  async workspaceDestinations(platform: ChatPlatformName, workspaceIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await queryRows<{ workspace_id: string; destination: string }>(
      this.dataSource,
      `SELECT workspace_id, destination FROM chat_destinations WHERE platform = $1 AND workspace_id = ANY($2::text[])`,
      [platform, [...workspaceIds]],
    );
    return new Map(rows.map((row) => [row.workspace_id, row.destination]));
  }
}
