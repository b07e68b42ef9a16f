import { Injectable } from '@nestjs/common';
import { ADMIN_CALLER } from '#authorization';
import { ClarificationService } from '#clarification';
import { ChatAnswerService } from '../answer/chat-answer.service.js';
import { chatNoteOf } from '../answer/chat-note.js';
import { CardPoster } from '../cards/card.poster.js';
import { ChatLinkService } from '../links/chat-link.service.js';
import { TelegramApi } from './telegram-api.client.js';
import { parseCallbackData } from './telegram-message.js';
import type { TelegramUpdate } from './telegram-update.js';

const PRIVATE_ONLY = 'Send /link to me in a private chat: the link it gives is yours alone.';

/** Telegram's limit on a callback query's alert text. */
const MAX_ALERT = 200;

/**
 * One Telegram update, however it arrived (the poller or the webhook): a button press answers through
 * ChatAnswerService — the update id is the idempotency key, so a duplicate update resolves nothing
 * again and gets the first outcome — and is answered with answerCallbackQuery (an alert for what the
 * person alone should read); `/link` in a private chat is answered with a one-time link to confirm in the browser.
 */
@Injectable()
export class TelegramUpdateService {
  constructor(
    private readonly answers: ChatAnswerService,
    private readonly api: TelegramApi,
    private readonly clarifications: ClarificationService,
    private readonly poster: CardPoster,
    private readonly links: ChatLinkService,
  ) {}

  async handle(update: TelegramUpdate): Promise<void> {
    if (update.callback_query) return this.buttonPress(update.update_id, update.callback_query);
    const message = update.message;
    if (!message?.text?.trim().startsWith('/link') || !message.from) return;
    if (message.chat.id !== message.from.id) {
      await this.api.call('sendMessage', { chat_id: message.chat.id, text: PRIVATE_ONLY });
      return;
    }
    const url = await this.links.requestLink('telegram', String(message.from.id));
    await this.api.call('sendMessage', {
      chat_id: message.chat.id,
      text: `Open ${url} in your browser, signed in to Parley, to link this Telegram account (${message.from.id}) to you. It works once, for 15 minutes.`,
    });
  }

  private async buttonPress(updateId: number, query: NonNullable<TelegramUpdate['callback_query']>): Promise<void> {
    const parsed = parseCallbackData(query.data ?? '');
    if (!parsed) {
      await this.api.call('answerCallbackQuery', { callback_query_id: query.id });
      return;
    }
    const option = await this.optionAt(parsed.pendingId, parsed.optionIndex);
    const outcome = await this.answers.answer('telegram', {
      interactionId: `update:${updateId}`,
      accountId: String(query.from.id),
      pendingId: parsed.pendingId,
      answers: option ? [{ question_id: option.questionId, selected_options: [option.optionId], custom_text: '' }] : [],
    });
    if (outcome.kind === 'won' || outcome.kind === 'voted') this.poster.bundleChanged(parsed.pendingId);
    const note = chatNoteOf(outcome);
    await this.api.call('answerCallbackQuery', {
      callback_query_id: query.id,
      text: (note ?? 'Answer recorded.').slice(0, MAX_ALERT),
      show_alert: note !== undefined,
    });
  }

  /** The option a button stands for (its position in the bundle's one question); undefined once there is none. */
  private async optionAt(pendingId: string, index: number): Promise<{ questionId: string; optionId: string } | undefined> {
    const report = await this.clarifications.getBundle(ADMIN_CALLER, pendingId).catch(() => undefined);
    const question = report?.request.questions[0];
    const option = question?.options[index];
    return question && option ? { questionId: question.id, optionId: option.option_id } : undefined;
  }

}
