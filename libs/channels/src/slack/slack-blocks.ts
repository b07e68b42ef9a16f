import { answersWithButtons, answersWithToggles, type CardView } from '../cards/card.types.js';

/** The action ids Parley's buttons carry (their `value` is JSON naming the bundle, question and option). */
export const SLACK_ANSWER_ACTION = 'parley_answer';
export const SLACK_OPEN_ACTION = 'parley_open';
/** A multi-select question's checkboxes (Slack keeps each person's ticks) and the button that submits them. */
export const SLACK_TOGGLE_ACTION = 'parley_toggle';
export const SLACK_SUBMIT_ACTION = 'parley_submit';
/** The callback id of the modal that answers a whole bundle. */
export const SLACK_MODAL_CALLBACK = 'parley_bundle';

export interface ButtonValue {
  p: string;
  q: string;
  o: string;
}

/** The Submit button's value: the bundle and its question (the ticks come with the payload's state). */
export interface SubmitValue {
  p: string;
  q: string;
}

/** The block of a multi-select question's toggles, by question. */
export const toggleBlockId = (questionId: string): string => `toggle:${questionId}`.slice(0, 255);

/** Slack's mrkdwn control characters (https://api.slack.com/reference/surfaces/formatting#escaping). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

type Block = Record<string, unknown>;

const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text: clip(text, 3000) } });

/** The card's summary line (also the notification text). */
export function cardText(view: CardView): string {
  const first = view.questions[0]?.prompt ?? 'a question';
  const more = view.questions.length > 1 ? ` (+${view.questions.length - 1} more)` : '';
  return view.outcome ? `${view.outcome} — ${first}${more}` : `An agent is waiting for an answer: ${first}${more}`;
}

function details(view: CardView): Block[] {
  const lines: string[] = [];
  if (view.action) lines.push(`*Authorizes:* \`${slackEscape(view.action.name)}\` ${slackEscape(clip(JSON.stringify(view.action.arguments), 1500))}`);
  if (view.assignees.length > 0) lines.push(`*Assigned to:* ${slackEscape(view.assignees.join(', '))}`);
  if (view.quorum) lines.push(`*Quorum:* ${view.quorum.votes} of ${view.quorum.required} matching answers`);
  return lines.length > 0 ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: clip(lines.join('\n'), 3000) }] }] : [];
}

function actions(view: CardView): Block[] {
  if (!view.open) return [];
  const question = view.questions[0];
  if (answersWithButtons(view) && question) {
    return [
      {
        type: 'actions',
        block_id: `answer:${question.id}`.slice(0, 255),
        elements: question.options.map((option) => ({
          type: 'button',
          action_id: `${SLACK_ANSWER_ACTION}:${option.id}`.slice(0, 255),
          text: { type: 'plain_text', text: clip(option.label, 75) },
          value: JSON.stringify({ p: view.pendingId, q: question.id, o: option.id } satisfies ButtonValue),
        })),
      },
    ];
  }
  if (answersWithToggles(view) && question) {
    return [
      {
        type: 'actions',
        block_id: toggleBlockId(question.id),
        elements: [
          {
            type: 'checkboxes',
            action_id: SLACK_TOGGLE_ACTION,
            options: question.options.map((option) => ({ text: { type: 'plain_text', text: clip(option.label, 75) }, value: option.id })),
          },
          {
            type: 'button',
            action_id: SLACK_SUBMIT_ACTION,
            style: 'primary',
            text: { type: 'plain_text', text: 'Submit' },
            value: JSON.stringify({ p: view.pendingId, q: question.id } satisfies SubmitValue),
          },
        ],
      },
    ];
  }
  return [
    {
      type: 'actions',
      block_id: 'open',
      elements: [{ type: 'button', action_id: SLACK_OPEN_ACTION, text: { type: 'plain_text', text: 'Answer' }, style: 'primary', value: view.pendingId }],
    },
  ];
}

/** The card as Slack blocks: the questions, what the answer authorizes, who may answer — buttons while open, the outcome once closed. */
export function cardBlocks(view: CardView): Block[] {
  const questions = view.questions.map((question) => {
    const options = question.options.map((option) => `• ${slackEscape(option.label)}`).join('\n');
    const title = question.title ? `*${slackEscape(question.title)}*\n` : '';
    const listed = options && !answersWithButtons(view) && !answersWithToggles(view);
    return section(`${title}${slackEscape(question.prompt)}${listed ? `\n${options}` : ''}`);
  });
  const head = view.outcome ? section(`*${slackEscape(view.outcome)}*`) : section(':raising_hand: An agent is waiting for an answer');
  const context = view.context ? [section(`_${slackEscape(view.context)}_`)] : [];
  const link = { type: 'context', elements: [{ type: 'mrkdwn', text: `<${view.inboxUrl}|Open in Parley>` }] };
  return [head, ...context, ...questions, ...details(view), ...actions(view), link];
}
