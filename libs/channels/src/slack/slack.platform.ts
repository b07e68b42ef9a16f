import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import type { CardView, PostedCard } from '../cards/card.types.js';
import { type ChatPlatform, DIRECT_PREFIX } from '../cards/chat-platform.js';
import { cardBlocks, cardText } from './slack-blocks.js';
import { SlackApi } from './slack-api.client.js';

/** Slack as a card platform: chat.postMessage (a direct message opened with conversations.open) and chat.update. */
@Injectable()
export class SlackPlatform implements ChatPlatform {
  readonly name = 'slack' as const;

  constructor(
    private readonly api: SlackApi,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get defaultDestination(): string | undefined {
    return this.config.chat.slack?.defaultChannel;
  }

  async post(destination: string, card: CardView): Promise<PostedCard> {
    const channel = destination.startsWith(DIRECT_PREFIX) ? await this.directChannel(destination.slice(DIRECT_PREFIX.length)) : destination;
    const posted = await this.api.call<{ channel: string; ts: string }>('chat.postMessage', { channel, text: cardText(card), blocks: cardBlocks(card) });
    return { channelRef: posted.channel, messageRef: posted.ts };
  }

  async update(posted: PostedCard, card: CardView): Promise<void> {
    // `blocks` always given: an update without them would keep the old buttons.
    await this.api.call('chat.update', { channel: posted.channelRef, ts: posted.messageRef, text: cardText(card), blocks: cardBlocks(card) });
  }

  private async directChannel(userId: string): Promise<string> {
    const opened = await this.api.call<{ channel: { id: string } }>('conversations.open', { users: userId });
    return opened.channel.id;
  }
}
