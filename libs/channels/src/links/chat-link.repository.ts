import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import type { ChatPlatformName } from '../chat.types.js';

export interface ChatLinkRow {
  platform: ChatPlatformName;
  platform_user_id: string;
  user_id: string;
  created_at: Date;
}

const CHAT_LINK_LINK = namedStatement(
  'chat_link_link',
  ['platform', 'account_id', 'user_id'],
  `INSERT INTO chat_links (platform, platform_user_id, user_id)
       SELECT :platform, :account_id, u.id FROM users u WHERE u.id = :user_id
       ON CONFLICT (platform, platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = clock_timestamp()
       RETURNING platform, platform_user_id, user_id, created_at`,
);

const CHAT_LINK_REQUEST = namedStatement(
  'chat_link_request',
  ['code_sha256', 'platform', 'account_id', 'ttl_ms'],
  `INSERT INTO chat_link_requests (code_sha256, platform, platform_user_id, expires_at)
       VALUES (:code_sha256, :platform, :account_id, clock_timestamp() + make_interval(secs => :ttl_ms::double precision / 1000))`,
);

const CHAT_LINK_CONFIRM = namedStatement(
  'chat_link_confirm',
  ['code_sha256', 'user_id'],
  `WITH stale AS (DELETE FROM chat_link_requests WHERE expires_at < clock_timestamp() RETURNING code_sha256),
       spent AS (DELETE FROM chat_link_requests WHERE code_sha256 = :code_sha256 AND expires_at >= clock_timestamp() RETURNING platform, platform_user_id)
       INSERT INTO chat_links (platform, platform_user_id, user_id)
       SELECT spent.platform, spent.platform_user_id, u.id FROM spent JOIN users u ON u.id = :user_id
       ON CONFLICT (platform, platform_user_id) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = clock_timestamp()
       RETURNING platform, platform_user_id, user_id, created_at`,
);

const CHAT_LINK_USER_OF = namedStatement(
  'chat_link_user_of',
  ['platform', 'account_id'],
  `SELECT user_id FROM chat_links WHERE platform = :platform AND platform_user_id = :account_id`,
);

const CHAT_LINK_ACCOUNTS_OF = namedStatement(
  'chat_link_accounts_of',
  ['platform', 'user_ids'],
  `SELECT platform, platform_user_id, user_id, created_at FROM chat_links
        WHERE platform = :platform AND user_id = ANY(:user_ids::text[]) ORDER BY user_id, created_at, platform_user_id`,
);

/** The statements ChatLinkRepository runs, for `npm run sql:write`. */
export const chatLinkStatements: readonly NamedStatement[] = [
  CHAT_LINK_LINK,
  CHAT_LINK_REQUEST,
  CHAT_LINK_CONFIRM,
  CHAT_LINK_USER_OF,
  CHAT_LINK_ACCOUNTS_OF,
];

/** `chat_links`: which Parley user each chat account answers as (one user per account). */
@Injectable()
export class ChatLinkRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Links the account to the user (replacing an earlier link of that account); undefined when the user does not exist. */
  link(platform: ChatPlatformName, accountId: string, userId: string): Promise<ChatLinkRow | undefined> {
    return CHAT_LINK_LINK.row<ChatLinkRow>(this.dataSource, { platform, account_id: accountId, user_id: userId });
  }

  /** Records a link asked for in chat, under the hash of its one-time code. */
  async request(codeSha256: string, platform: ChatPlatformName, accountId: string, ttlMs: number): Promise<void> {
    await CHAT_LINK_REQUEST.rows(this.dataSource, { code_sha256: codeSha256, platform, account_id: accountId, ttl_ms: ttlMs });
  }

  /**
   * Spends a link request (once, before it expires) and links its account to the user, in one
   * statement; undefined when the code is unknown, spent or expired. Expired requests go with it.
   */
  confirm(codeSha256: string, userId: string): Promise<ChatLinkRow | undefined> {
    return CHAT_LINK_CONFIRM.row<ChatLinkRow>(this.dataSource, { code_sha256: codeSha256, user_id: userId });
  }

  async userOf(platform: ChatPlatformName, accountId: string): Promise<string | undefined> {
    const row = await CHAT_LINK_USER_OF.row<{ user_id: string }>(this.dataSource, { platform, account_id: accountId });
    return row?.user_id;
  }

  /** The accounts on `platform` linked to any of the users, in user order then oldest first. */
  accountsOf(platform: ChatPlatformName, userIds: readonly string[]): Promise<ChatLinkRow[]> {
    return CHAT_LINK_ACCOUNTS_OF.rows<ChatLinkRow>(this.dataSource, { platform, user_ids: [...userIds] });
  }
}
