import { answersWithButtons, answersWithToggles, type CardView } from '../cards/card.types.js';

/**
 * What a button does, as its callback_data (≤ 64 bytes) says: `a` answers with an option, `t` ticks
 * or unticks one (a multi-select card), `s` submits the presser's ticks; then the bundle, and the
 * option's position in its question.
 */
export type ButtonPress = { kind: 'answer' | 'toggle'; pendingId: string; optionIndex: number } | { kind: 'submit'; pendingId: string };

export function callbackData(press: ButtonPress): string {
  switch (press.kind) {
    case 'answer':
      return `a|${press.pendingId}|${press.optionIndex}`;
    case 'toggle':
      return `t|${press.pendingId}|${press.optionIndex}`;
    case 'submit':
      return `s|${press.pendingId}`;
  }
}

export function parseCallbackData(data: string): ButtonPress | undefined {
  const option = /^([at])\|([^|]{1,48})\|(\d{1,3})$/.exec(data);
  if (option) return { kind: option[1] === 'a' ? 'answer' : 'toggle', pendingId: option[2], optionIndex: Number(option[3]) };
  const submit = /^s\|([^|]{1,48})$/.exec(data);
  return submit ? { kind: 'submit', pendingId: submit[1] } : undefined;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** Telegram's message text limit. */
const MAX_TEXT = 4096;

/** The card as plain text (no parse mode: nothing to escape): questions, action, assignees, quorum, outcome, the inbox link. */
export function cardMessageText(view: CardView): string {
  const lines: string[] = [view.outcome ?? 'An agent is waiting for an answer'];
  if (view.context) lines.push('', view.context);
  for (const question of view.questions) {
    lines.push('', question.title ? `${question.title}: ${question.prompt}` : question.prompt);
    if (!answersWithButtons(view) && !answersWithToggles(view)) lines.push(...question.options.map((option) => `• ${option.label}`));
  }
  if (view.action) lines.push('', `Authorizes: ${view.action.name} ${JSON.stringify(view.action.arguments)}`);
  if (view.assignees.length > 0) lines.push(`Assigned to: ${view.assignees.join(', ')}`);
  if (view.quorum) lines.push(`Quorum: ${view.quorum.votes} of ${view.quorum.required} matching answers`);
  if (answersWithToggles(view) && view.open) lines.push('', 'Tick every option that applies, then Submit.');
  if (view.open && !answersWithButtons(view) && !answersWithToggles(view)) lines.push('', `Answer in Parley: ${view.inboxUrl}`);
  return clip(lines.join('\n'), MAX_TEXT);
}

/** The inline keyboard: a button per option (multi-select: toggles and a Submit) while the card takes answers there; none otherwise. */
export function cardKeyboard(view: CardView): { inline_keyboard: { text: string; callback_data: string }[][] } | undefined {
  const question = view.questions[0];
  if (!view.open || !question) return undefined;
  const { pendingId } = view;
  if (answersWithButtons(view)) {
    return { inline_keyboard: question.options.map((option, optionIndex) => [{ text: clip(option.label, 64), callback_data: callbackData({ kind: 'answer', pendingId, optionIndex }) }]) };
  }
  if (!answersWithToggles(view)) return undefined;
  return {
    inline_keyboard: [
      ...question.options.map((option, optionIndex) => [{ text: `☐ ${clip(option.label, 60)}`, callback_data: callbackData({ kind: 'toggle', pendingId, optionIndex }) }]),
      [{ text: 'Submit', callback_data: callbackData({ kind: 'submit', pendingId }) }],
    ],
  };
}
