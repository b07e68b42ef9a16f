import { isResolutionSurface, type ResolutionSurface } from '#common';
import { QUESTION_EVENTS_OF, WEBHOOK_EVENT_TYPES, type WebhookEventType, WebhookFormat } from '../webhook.types.js';

/** A claimed outbox row with what its body needs. */
export interface OutgoingDelivery {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  pending_id: string;
  session_id: string;
  task_id: string;
  workspace_id: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
  attempts: number;
  url: string;
  secret: string;
  format: WebhookFormat;
  task_title: string;
  workspace_name: string;
  first_prompt: string;
  question_count: number;
}

export function webhookEventOf(questionEventType: string): WebhookEventType | undefined {
  return WEBHOOK_EVENT_TYPES.find((type) => QUESTION_EVENTS_OF[type].includes(questionEventType));
}

/** Where a person answers the bundle: the inbox page's route for it. */
export function inboxLink(baseUrl: string, pendingId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/#/q/${encodeURIComponent(pendingId)}`;
}

/** Parley's JSON body: the event, where it happened, and its payload as the question event stores it. */
function jsonBody(delivery: OutgoingDelivery, link: string): Record<string, unknown> {
  return {
    id: delivery.id,
    event: webhookEventOf(delivery.event_type) ?? null,
    type: delivery.event_type,
    event_id: delivery.event_id,
    occurred_at: delivery.occurred_at.toISOString(),
    workspace: { id: delivery.workspace_id, name: delivery.workspace_name },
    task: { id: delivery.task_id, title: delivery.task_title },
    session_id: delivery.session_id,
    pending_id: delivery.pending_id,
    url: link,
    data: delivery.payload,
  };
}

/** Slack's mrkdwn control characters (https://api.slack.com/reference/surfaces/formatting#escaping). */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Winner {
  kind?: string;
  name?: string | null;
  user_id?: string | null;
  surface?: string;
}

/** Every resolution surface's name in a message (a surface added to the list does not compile until it is named here). */
const SURFACE_NAMES: Record<ResolutionSurface, string> = {
  web: 'the inbox',
  rest: 'the REST API',
  mcp: 'MCP',
  mcp_app: 'the MCP App',
  graphql: 'GraphQL',
  command: 'a connector command',
  slack: 'Slack',
  telegram: 'Telegram',
};

function winnerName(winner: Winner | undefined): string {
  if (!winner) return 'someone';
  if (winner.kind === 'user') return winner.name || winner.user_id || 'a user';
  if (winner.kind === 'admin') return 'an administrator';
  if (winner.kind === 'agent') return "the session's agent";
  return 'someone';
}

/** The eligible users a REMINDED or ESCALATED event names, for a message. */
function eligibleNames(payload: Record<string, unknown>): string {
  const eligible = Array.isArray(payload.eligible) ? (payload.eligible as { user_id?: string; name?: string }[]) : [];
  const names = eligible.map((user) => user.name || user.user_id || '').filter((name) => name !== '');
  return names.length > 0 ? names.join(', ') : 'everyone who sees it';
}

/** A Slack incoming-webhook message: one line saying what happened, the question, and a link to it in the inbox. */
function slackBody(delivery: OutgoingDelivery, link: string): Record<string, unknown> {
  const task = slackEscape(delivery.task_title || delivery.task_id || 'a task');
  const more = delivery.question_count > 1 ? ` (+${delivery.question_count - 1} more)` : '';
  const question = delivery.first_prompt ? ` “${slackEscape(delivery.first_prompt)}”${more}` : '';
  const winner = delivery.payload.resolved_by as Winner | undefined;
  const via = winner?.surface ? ` via ${isResolutionSurface(winner.surface) ? SURFACE_NAMES[winner.surface] : winner.surface}` : '';
  const expiresAt = typeof delivery.payload.expires_at === 'string' ? ` It expires at ${delivery.payload.expires_at}.` : '';
  const lines: Record<string, string> = {
    ASKED: `:raising_hand: An agent is blocked waiting for an answer on *${task}*:${question}.${expiresAt} <${link}|Answer in Parley>`,
    ANSWERED: `:white_check_mark: Answered by ${slackEscape(winnerName(winner))}${via} on *${task}*:${question}. <${link}|View in Parley>`,
    REJECTED: `:no_entry_sign: Declined by ${slackEscape(winnerName(winner))}${via} on *${task}*:${question}. <${link}|View in Parley>`,
    EXPIRED: `:hourglass: A question expired unanswered on *${task}*:${question}. <${link}|View in Parley>`,
    REMINDED: `:bell: Reminder for ${slackEscape(eligibleNames(delivery.payload))}: an agent still waits for an answer on *${task}*:${question}. <${link}|Answer in Parley>`,
    ESCALATED: `:arrow_up: Escalated to ${slackEscape(eligibleNames(delivery.payload))}: an agent still waits for an answer on *${task}*:${question}. <${link}|Answer in Parley>`,
    DETACHED: `:electric_plug: The agent stopped waiting on *${task}*; the question is still open:${question}. <${link}|Answer in Parley>`,
  };
  return { text: lines[delivery.event_type] ?? `${delivery.event_type} on *${task}*. <${link}|View in Parley>` };
}

/** The body a delivery sends, in its subscription's format. */
export function renderBody(delivery: OutgoingDelivery, baseUrl: string): string {
  const link = inboxLink(baseUrl, delivery.pending_id);
  return JSON.stringify(delivery.format === WebhookFormat.Slack ? slackBody(delivery, link) : jsonBody(delivery, link));
}
