import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow, queryRows } from '#persistence';
import type { ChatPlatformName } from '../chat.types.js';

export interface ChatLinkRow {
  platform: ChatPlatformName;
  platform_user_id: string;
  user_id: string;
  created_at: Date;
}

/** `chat_links`: which Parley user each chat account answers as (one user per account). */
@Injectable()
export class ChatLinkRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Links the account to the user (replacing an earlier link of that account); undefined when the user does not exist. */
  link(platform: ChatPlatformName, accountId: string, userId: string): Promise<ChatLinkRow | undefined> {
    return queryRow<ChatLinkRow>(
      this.dataSource,
      `INSERT INTO chat_links (platform, platform_user_id, user_id)
       SELECT $1, $2, u.id FROM users u WHERE u.id = $3
       ON CONFLICT (platform, platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = clock_timestamp()
       RETURNING platform, platform_user_id, user_id, created_at`,
      [platform, accountId, userId],
    );
  }

  /** Records a link asked for in chat, under the hash of its one-time code. */
  async request(codeSha256: string, platform: ChatPlatformName, accountId: string, ttlMs: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO chat_link_requests (code_sha256, platform, platform_user_id, expires_at)
       VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4::double precision / 1000))`,
      [codeSha256, platform, accountId, ttlMs],
    );
  }

  /**
   * Spends a link request (once, before it expires) and links its account to the user, in one
   * statement; undefined when the code is unknown, spent or expired. Expired requests go with it.
   */
  confirm(codeSha256: string, userId: string): Promise<ChatLinkRow | undefined> {
    return queryRow<ChatLinkRow>(
      this.dataSource,
      `WITH stale AS (DELETE FROM chat_link_requests WHERE expires_at < clock_timestamp() RETURNING code_sha256),
       spent AS (DELETE FROM chat_link_requests WHERE code_sha256 = $1 AND expires_at >= clock_timestamp() RETURNING platform, platform_user_id)
       INSERT INTO chat_links (platform, platform_user_id, user_id)
       SELECT spent.platform, spent.platform_user_id, u.id FROM spent JOIN users u ON u.id = $2
       ON CONFLICT (platform, platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = clock_timestamp()
       RETURNING platform, platform_user_id, user_id, created_at`,
      [codeSha256, userId],
    );
  }

  async userOf(platform: ChatPlatformName, accountId: string): Promise<string | undefined> {
    const row = await queryRow<{ user_id: string }>(
      this.dataSource,
      `SELECT user_id FROM chat_links WHERE platform = $1 AND platform_user_id = $2`,
      [platform, accountId],
    );
    return row?.user_id;
  }

  /** The accounts on `platform` linked to any of the users, in user order then oldest first. */
  accountsOf(platform: ChatPlatformName, userIds: readonly string[]): Promise<ChatLinkRow[]> {
    return queryRows<ChatLinkRow>(
      this.dataSource,
      `SELECT platform, platform_user_id, user_id, created_at FROM chat_links
        WHERE platform = $1 AND user_id = ANY($2::text[]) ORDER BY user_id, created_at, platform_user_id`,
      [platform, [...userIds]],
    );
  }
}
