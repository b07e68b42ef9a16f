import { answersWithButtons, type CardView } from '../cards/card.types.js';

/** A button's callback_data (≤ 64 bytes): `a`, the bundle, and the option's position in its question. */
export function callbackData(pendingId: string, optionIndex: number): string {
  return `a|${pendingId}|${optionIndex}`;
}

export function parseCallbackData(data: string): { pendingId: string; optionIndex: number } | undefined {
  const match = /^a\|([^|]{1,48})\|(\d{1,3})$/.exec(data);
  return match ? { pendingId: match[1], optionIndex: Number(match[2]) } : undefined;
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
    if (!answersWithButtons(view)) lines.push(...question.options.map((option) => `• ${option.label}`));
  }
  if (view.action) lines.push('', `Authorizes: ${view.action.name} ${JSON.stringify(view.action.arguments)}`);
  if (view.assignees.length > 0) lines.push(`Assigned to: ${view.assignees.join(', ')}`);
  if (view.quorum) lines.push(`Quorum: ${view.quorum.votes} of ${view.quorum.required} matching answers`);
  if (view.open && !answersWithButtons(view)) lines.push('', `Answer in Parley: ${view.inboxUrl}`);
  return clip(lines.join('\n'), MAX_TEXT);
}

/** The inline keyboard: a button per option while the card takes answers from buttons; none otherwise. */
export function cardKeyboard(view: CardView): { inline_keyboard: { text: string; callback_data: string }[][] } | undefined {
  const question = view.questions[0];
  if (!view.open || !answersWithButtons(view) || !question) return undefined;
  return { inline_keyboard: question.options.map((option, index) => [{ text: clip(option.label, 64), callback_data: callbackData(view.pendingId, index) }]) };
}
