import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '#authorization';
import { APP_CONFIG, type AppConfig } from '#config';
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

/** A link asked for in chat can be confirmed in the browser this long. */
export const LINK_REQUEST_TTL_MS = 15 * 60_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const viewOf = (row: { platform: ChatPlatformName; platform_user_id: string; user_id: string; created_at: Date }): ChatLinkView => ({
  platform: row.platform,
  account_id: row.platform_user_id,
  user_id: row.user_id,
  linked_at: row.created_at.toISOString(),
});

/**
 * Linking chat accounts to Parley users: the operator's CLI and the admin's REST route link directly;
 * in chat, a person asks for a link (a one-time code, stored hashed) and confirms it in the browser
 * inbox while signed in — the account then answers as whoever confirmed.
 */
@Injectable()
export class ChatLinkService {
  constructor(
    private readonly links: ChatLinkRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A link asked for from chat: the inbox URL that confirms it (the code in it is shown once). */
  async requestLink(platform: ChatPlatformName, accountId: string): Promise<string> {
    const code = randomBytes(24).toString('base64url');
    await this.links.request(sha256(code), platform, accountId, LINK_REQUEST_TTL_MS);
    const base = (this.config.publicUrl ?? `http://${this.config.host}:${this.config.port}`).replace(/\/+$/, '');
    return `${base}/#/link/${code}`;
  }

  /** The signed-in user confirms a link asked for in chat; an unknown, spent or expired code is not found. */
  async confirm(caller: Caller, code: unknown): Promise<ChatLinkView> {
    if (caller.kind !== 'user') throw ChatError.invalid('a chat account is linked to a user: sign in as the person whose account it is');
    if (typeof code !== 'string' || !/^[A-Za-z0-9_-]{16,64}$/.test(code)) throw ChatError.invalid('code must be the code of a link asked for in chat');
    const row = await this.links.confirm(sha256(code), caller.userId);
    if (!row) throw ChatError.notFound('link request');
    return viewOf(row);
  }

  async link(platform: unknown, accountId: string, userId: string): Promise<ChatLinkView> {
    if (!isChatPlatformName(platform)) throw ChatError.invalid('platform must be "slack" or "telegram"');
    if (!ACCOUNT_ID[platform].test(accountId)) {
      throw ChatError.invalid(platform === 'slack' ? 'account_id must be a Slack user id (U… or W…)' : 'account_id must be a Telegram user id (digits)');
    }
    const row = await this.links.link(platform, accountId, userId);
    if (!row) throw ChatError.notFound('user');
    return viewOf(row);
  }
}
