import { Inject, Injectable, Logger } from '@nestjs/common';
import { ADMIN_CALLER } from '#authorization';
import { BundleReadService } from '#clarification';
import { APP_CONFIG, type AppConfig, type SlackSettings } from '#config';
import { ChatAnswerService } from '../answer/chat-answer.service.js';
import type { ChatAnswer } from '../answer/chat-answer.types.js';
import { cardOf } from '../cards/card-content.js';
import { CardPoster } from '../cards/card.poster.js';
import { ChatError } from '../chat.errors.js';
import { ChatLinkService } from '../links/chat-link.service.js';
import { chatNoteOf } from '../answer/chat-note.js';
import {
  type ButtonValue,
  SLACK_ANSWER_ACTION,
  SLACK_MODAL_CALLBACK,
  SLACK_OPEN_ACTION,
  SLACK_SUBMIT_ACTION,
  SLACK_TOGGLE_ACTION,
  type SubmitValue,
  toggleBlockId,
} from './slack-blocks.js';
import { answersOfSubmission, bundleModal } from './slack-modal.js';
import { parseInteraction, type SlackBlockActions, type SlackViewSubmission } from './slack-payload.js';
import { SlackApi } from './slack-api.client.js';
import { isSignedBySlack } from './slack-signature.js';

export interface SlackRequest {
  body: Buffer;
  contentType: string;
  signature: string | undefined;
  timestamp: string | undefined;
}

/** What the request URL answers Slack: a JSON body, or an empty 200. */
export type SlackReply = Record<string, unknown> | undefined;

const HELP = 'Type `/parley link` to link your Slack account to your Parley user, so that your clicks answer as you.';

function parsedValue<T>(value: string): T {
  try {
    return JSON.parse(value) as T;
  } catch {
    throw ChatError.invalid('actions[0].value is not a Parley button');
  }
}

/**
 * What a click chose: an option's button, or the Submit of a multi-select card with the ticks the
 * payload's state carries; undefined for a tick itself (nothing is answered until Submit).
 */
function choiceOf(actionId: string, value: string, interaction: SlackBlockActions): { pendingId: string; questionId: string; options: string[] } | undefined {
  if (actionId.startsWith(`${SLACK_ANSWER_ACTION}:`)) {
    const button = parsedValue<ButtonValue>(value);
    return { pendingId: String(button.p), questionId: String(button.q), options: [String(button.o)] };
  }
  if (actionId !== SLACK_SUBMIT_ACTION) return undefined;
  const submit = parsedValue<SubmitValue>(value);
  const ticked = interaction.state?.values[toggleBlockId(String(submit.q))]?.[SLACK_TOGGLE_ACTION]?.selected_options ?? [];
  return { pendingId: String(submit.p), questionId: String(submit.q), options: ticked.map((option) => (typeof option.value === 'string' ? option.value : '')) };
}

/**
 * Slack's one request URL: URL verification, interactivity (`block_actions`: a button; `view_submission`:
 * the modal) and the `/parley link` slash command — each verified against the signing secret first (a bad
 * or stale signature changes nothing). Answers go through ChatAnswerService (the one resolver); what
 * the person alone should read goes back as an ephemeral message; the cards of a bundle an answer
 * changed are shown again at once.
 */
@Injectable()
export class SlackInteractionService {
  private readonly logger = new Logger('Slack');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly answers: ChatAnswerService,
    private readonly api: SlackApi,
    private readonly reader: BundleReadService,
    private readonly poster: CardPoster,
    private readonly links: ChatLinkService,
  ) {}

  async handle(request: SlackRequest): Promise<SlackReply> {
    const settings = this.settings();
    if (!isSignedBySlack(settings.signingSecret, request, request.body, Math.floor(Date.now() / 1000))) {
      throw ChatError.badSignature('X-Slack-Signature does not match the body, or X-Slack-Request-Timestamp is outside the 5-minute window');
    }
    const text = request.body.toString('utf8');
    if (request.contentType.toLowerCase().startsWith('application/json')) return this.event(text);
    const form = new URLSearchParams(text);
    const payload = form.get('payload');
    if (payload !== null) return this.interaction(payload);
    if (form.get('command') !== null) return this.command(form.get('text') ?? '', form.get('user_id') ?? '');
    throw ChatError.invalid('body must carry payload (an interaction) or command (a slash command)');
  }

  private settings(): SlackSettings {
    const settings = this.config.chat.slack;
    if (!settings) throw ChatError.notFound('Slack connector');
    return settings;
  }

  /** `/parley link`: a one-time link the person opens in the browser inbox, signed in, to confirm. */
  private async command(text: string, userId: string): Promise<SlackReply> {
    if (text.trim().toLowerCase() !== 'link' || userId === '') return { response_type: 'ephemeral', text: HELP };
    const url = await this.links.requestLink('slack', userId);
    return {
      response_type: 'ephemeral',
      text: `Open <${url}|this link> in your browser, signed in to Parley, to link this Slack account (${userId}) to you. It works once, for 15 minutes.`,
    };
  }

  /** The Events API: only its URL verification is used (answers arrive as interactions). */
  private event(text: string): SlackReply {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw ChatError.invalid('body is not JSON');
    }
    const event = parsed as { type?: unknown; challenge?: unknown };
    if (event.type === 'url_verification' && typeof event.challenge === 'string') return { challenge: event.challenge };
    return undefined;
  }

  private async interaction(json: string): Promise<SlackReply> {
    let interaction;
    try {
      interaction = parseInteraction(json);
    } catch {
      throw ChatError.invalid('payload is not JSON');
    }
    switch (interaction.type) {
      case 'block_actions':
        await this.blockAction(interaction);
        return undefined;
      case 'view_submission':
        return this.submission(interaction);
      case 'other':
        return undefined;
    }
  }

  private async blockAction(interaction: SlackBlockActions): Promise<void> {
    const action = interaction.actions[0];
    if (!action) return;
    const channel = interaction.channel?.id ?? interaction.container?.channel_id;
    if (action.action_id === SLACK_OPEN_ACTION && action.value) {
      await this.openModal(interaction, action.value, channel);
      return;
    }
    const chosen = action.value ? choiceOf(action.action_id, action.value, interaction) : undefined;
    if (!chosen) return;
    const answer: ChatAnswer = {
      interactionId: `action:${interaction.trigger_id}`,
      accountId: interaction.user.id,
      pendingId: chosen.pendingId,
      answers: [{ question_id: chosen.questionId, selected_options: chosen.options, custom_text: '' }],
    };
    const outcome = await this.answers.answer('slack', answer);
    if (outcome.kind === 'won') this.poster.bundleChanged(answer.pendingId);
    const note = chatNoteOf(outcome);
    if (note !== undefined && channel !== undefined) this.ephemeral(channel, interaction.user.id, note);
  }

  /** The modal for a bundle a button cannot answer; the trigger expires in 3 s, so it is opened before the reply. */
  private async openModal(interaction: SlackBlockActions, pendingId: string, channel: string | undefined): Promise<void> {
    const report = await this.reader.getBundle(ADMIN_CALLER, pendingId).catch(() => undefined);
    const view = report ? cardOf(report, this.config.publicUrl ?? '') : undefined;
    if (!view?.open) {
      if (channel !== undefined) this.ephemeral(channel, interaction.user.id, 'This question is no longer open: nothing was changed.');
      return;
    }
    await this.api.call('views.open', { trigger_id: interaction.trigger_id, view: bundleModal(view) });
  }

  private async submission(interaction: SlackViewSubmission): Promise<SlackReply> {
    const { view } = interaction;
    if (view.callback_id !== SLACK_MODAL_CALLBACK || !view.private_metadata) return undefined;
    const questionIds = [...new Set(Object.keys(view.state.values).map((blockId) => blockId.slice(blockId.indexOf(':') + 1)))];
    const answer: ChatAnswer = {
      interactionId: `view:${view.id}`,
      accountId: interaction.user.id,
      pendingId: view.private_metadata,
      answers: answersOfSubmission(questionIds, view.state.values),
    };
    const outcome = await this.answers.answer('slack', answer);
    if (outcome.kind === 'won') this.poster.bundleChanged(answer.pendingId);
    const note = chatNoteOf(outcome);
    if (note === undefined) return { response_action: 'clear' };
    return {
      response_action: 'update',
      view: { type: 'modal', title: { type: 'plain_text', text: 'Parley' }, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: note } }] },
    };
  }

  /** Told to the one person, after Slack has its acknowledgement. */
  private ephemeral(channel: string, user: string, text: string): void {
    void this.api
      .call('chat.postEphemeral', { channel, user, text })
      .catch((error: unknown) => this.logger.warn({ msg: 'ephemeral message not sent', err: String(error) }));
  }
}

