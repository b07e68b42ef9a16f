import { Injectable } from '@nestjs/common';
import { ChatError } from '../chat.errors.js';
import { type ChatPlatformName, isChatPlatformName } from '../chat.types.js';
import { ChatLinkRepository } from './chat-link.repository.js';

/** What an account id looks like on each platform: a Slack user id (`U…`, `W…`), a Telegram user id (digits). */
const ACCOUNT_ID: Record<ChatPlatformName, RegExp> = {
  slack: /^[UW][A-Z0-9]{2,30}$/,
  telegram: /^[1-9]\d{0,19}$/,
};

export interface ChatLinkView {
  platform: ChatPlatformName;
  account_id: string;
  user_id: string;
  linked_at: string;
}

/** Linking chat accounts to Parley users: the operator's CLI and the admin's REST route call this. */
@Injectable()
export class ChatLinkService {
  constructor(private readonly links: ChatLinkRepository) {}

  async link(platform: unknown, accountId: string, userId: string): Promise<ChatLinkView> {
    if (!isChatPlatformName(platform)) throw ChatError.invalid('platform must be "slack" or "telegram"');
    if (!ACCOUNT_ID[platform].test(accountId)) {
      throw ChatError.invalid(platform === 'slack' ? 'account_id must be a Slack user id (U… or W…)' : 'account_id must be a Telegram user id (digits)');
    }
    const row = await this.links.link(platform, accountId, userId);
    if (!row) throw ChatError.notFound('user');
    return { platform: row.platform, account_id: row.platform_user_id, user_id: row.user_id, linked_at: row.created_at.toISOString() };
  }
}
