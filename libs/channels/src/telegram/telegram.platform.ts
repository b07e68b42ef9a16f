import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import type { CardView, PostedCard } from '../cards/card.types.js';
import { type ChatPlatform, DIRECT_PREFIX } from '../cards/chat-platform.js';
import { TelegramApi, TelegramApiError } from './telegram-api.client.js';
import { cardKeyboard, cardMessageText } from './telegram-message.js';

interface SentMessage {
  message_id: number;
  chat: { id: number | string };
}

/** Telegram as a card platform: sendMessage (a user's private chat has their user id) and editMessageText. */
@Injectable()
export class TelegramPlatform implements ChatPlatform {
  readonly name = 'telegram' as const;

  constructor(
    private readonly api: TelegramApi,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get defaultDestination(): string | undefined {
    return this.config.chat.telegram?.defaultChat;
  }

  async post(destination: string, card: CardView): Promise<PostedCard> {
    const chatId = destination.startsWith(DIRECT_PREFIX) ? destination.slice(DIRECT_PREFIX.length) : destination;
    const keyboard = cardKeyboard(card);
    const sent = await this.api.call<SentMessage>('sendMessage', { chat_id: chatId, text: cardMessageText(card), ...(keyboard ? { reply_markup: keyboard } : {}) });
    return { channelRef: String(sent.chat.id), messageRef: String(sent.message_id) };
  }

  async update(posted: PostedCard, card: CardView): Promise<void> {
    const keyboard = cardKeyboard(card);
    try {
      // Without reply_markup the keyboard is removed: a closed card has no buttons.
      await this.api.call('editMessageText', {
        chat_id: posted.channelRef,
        message_id: Number(posted.messageRef),
        text: cardMessageText(card),
        ...(keyboard ? { reply_markup: keyboard } : {}),
      });
    } catch (error) {
      // The card already shows this (an edit that changes nothing is refused as such).
      if (error instanceof TelegramApiError && error.description.includes('message is not modified')) return;
      throw error;
    }
  }
}
