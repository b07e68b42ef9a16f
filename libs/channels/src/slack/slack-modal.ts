import type { Answer } from '#clarification';
import type { CardView } from '../cards/card.types.js';
import { SLACK_MODAL_CALLBACK, slackEscape } from './slack-blocks.js';

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** Slack's limits on a modal's inputs. */
const MAX_SELECT_OPTIONS = 100;
const MAX_CHECKBOXES = 10;

type Block = Record<string, unknown>;

const optionOf = (option: { id: string; label: string }) => ({ text: { type: 'plain_text', text: clip(option.label, 75) }, value: option.id });

/** One input block per question (a choice, or several), and an optional free-text input beside it. */
function questionBlocks(question: CardView['questions'][number]): Block[] {
  const label = clip(question.title || question.prompt, 2000);
  const choice: Block[] = [];
  if (question.options.length > 0) {
    const many = question.multiSelect;
    const element =
      many && question.options.length <= MAX_CHECKBOXES
        ? { type: 'checkboxes', action_id: 'choice', options: question.options.map(optionOf) }
        : many
          ? { type: 'multi_static_select', action_id: 'choice', options: question.options.slice(0, MAX_SELECT_OPTIONS).map(optionOf) }
          : { type: 'static_select', action_id: 'choice', options: question.options.slice(0, MAX_SELECT_OPTIONS).map(optionOf) };
    choice.push({ type: 'input', block_id: `choice:${question.id}`, label: { type: 'plain_text', text: label }, hint: { type: 'plain_text', text: clip(question.prompt, 2000) }, element, optional: false });
  }
  const text: Block = {
    type: 'input',
    block_id: `text:${question.id}`,
    optional: question.options.length > 0,
    label: { type: 'plain_text', text: question.options.length > 0 ? 'Anything to add?' : label },
    element: { type: 'plain_text_input', action_id: 'text', multiline: true },
  };
  return [...choice, text];
}

/** The modal that answers a whole bundle (several questions, multi-select, free text). */
export function bundleModal(view: CardView): Record<string, unknown> {
  const head = { type: 'section', text: { type: 'mrkdwn', text: clip(slackEscape(view.context || 'An agent is waiting for your answer.'), 3000) } };
  return {
    type: 'modal',
    callback_id: SLACK_MODAL_CALLBACK,
    private_metadata: view.pendingId,
    title: { type: 'plain_text', text: 'Answer in Parley' },
    submit: { type: 'plain_text', text: 'Submit' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [head, ...view.questions.flatMap(questionBlocks)],
  };
}

interface SubmittedValue {
  selected_option?: { value?: unknown } | null;
  selected_options?: { value?: unknown }[] | null;
  value?: unknown;
}

/** The answers a `view_submission` carries, question by question (what the resolver then validates). */
export function answersOfSubmission(questionIds: readonly string[], values: Record<string, Record<string, SubmittedValue>>): Answer[] {
  return questionIds.map((questionId) => {
    const choice = values[`choice:${questionId}`]?.choice;
    const selected = choice?.selected_options ?? (choice?.selected_option ? [choice.selected_option] : []);
    const text = values[`text:${questionId}`]?.text?.value;
    return {
      question_id: questionId,
      selected_options: selected.map((option) => (typeof option.value === 'string' ? option.value : '')),
      custom_text: typeof text === 'string' ? text : '',
    };
  });
}
