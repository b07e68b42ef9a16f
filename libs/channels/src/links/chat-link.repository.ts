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
