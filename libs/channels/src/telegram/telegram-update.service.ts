import { Injectable } from '@nestjs/common';
import { ADMIN_CALLER } from '#authorization';
import { BundleReadService } from '#clarification';
import { assertNever } from '#common';
import { ChatAnswerService } from '../answer/chat-answer.service.js';
import type { ChatAnswerOutcome } from '../answer/chat-answer.types.js';
import { chatNoteOf } from '../answer/chat-note.js';
import { CardPoster } from '../cards/card.poster.js';
import { ChatLinkService } from '../links/chat-link.service.js';
import { TelegramApi } from './telegram-api.client.js';
import { type ButtonPress, parseCallbackData } from './telegram-message.js';
import { TelegramToggleRepository } from './telegram-toggle.repository.js';
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
    private readonly reader: BundleReadService,
    private readonly poster: CardPoster,
    private readonly links: ChatLinkService,
    private readonly toggles: TelegramToggleRepository,
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
    const press = parseCallbackData(query.data ?? '');
    if (!press) {
      await this.api.call('answerCallbackQuery', { callback_query_id: query.id });
      return;
    }
    const outcome = await this.outcomeOf(press, `update:${updateId}`, String(query.from.id));
    if (outcome.kind === 'won') this.poster.bundleChanged(press.pendingId);
    const note = chatNoteOf(outcome);
    await this.api.call('answerCallbackQuery', {
      callback_query_id: query.id,
      text: (note ?? 'Answer recorded.').slice(0, MAX_ALERT),
      // A tick is a passing notice; anything else the person must read.
      show_alert: note !== undefined && outcome.kind !== 'toggled',
    });
  }

  private async outcomeOf(press: ButtonPress, interactionId: string, accountId: string): Promise<ChatAnswerOutcome> {
    const { pendingId } = press;
    switch (press.kind) {
      case 'answer': {
        const option = (await this.questionOf(pendingId))?.options[press.optionIndex];
        const answers = option ? [{ question_id: option.questionId, selected_options: [option.id], custom_text: '' }] : [];
        return this.answers.answer('telegram', { interactionId, accountId, pendingId, answers });
      }
      case 'toggle':
        return this.answers.once('telegram', interactionId, async () => {
          const question = await this.questionOf(pendingId);
          const option = question?.options[press.optionIndex];
          if (!question || !option) return { kind: 'refused', reason: 'closed', message: 'This question is no longer open: nothing was changed.' };
          const ticked = await this.toggles.toggle(pendingId, accountId, option.id);
          return { kind: 'toggled', selected: ticked.map((id) => question.options.find((candidate) => candidate.id === id)?.label ?? id) };
        });
      case 'submit': {
        const question = await this.questionOf(pendingId);
        const selected = await this.toggles.selected(pendingId, accountId);
        const answers = question ? [{ question_id: question.id, selected_options: selected, custom_text: '' }] : [];
        const outcome = await this.answers.answer('telegram', { interactionId, accountId, pendingId, answers });
        if (outcome.kind === 'won' || outcome.kind === 'voted' || outcome.kind === 'lost') await this.toggles.clear(pendingId, accountId);
        return outcome;
      }
      default:
        return assertNever(press);
    }
  }

  /** The bundle's one question, as its buttons number its options; undefined once there is none. */
  private async questionOf(pendingId: string): Promise<{ id: string; options: { id: string; label: string; questionId: string }[] } | undefined> {
    const report = await this.reader.getBundle(ADMIN_CALLER, pendingId).catch(() => undefined);
    const question = report?.request.questions[0];
    return question && { id: question.id, options: question.options.map((option) => ({ id: option.option_id, label: option.label, questionId: question.id })) };
  }
}
