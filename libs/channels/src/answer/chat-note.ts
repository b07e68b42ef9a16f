import { assertNever } from '#common';
import type { ChatAnswerOutcome } from './chat-answer.types.js';

const LINK_NOTE =
  'Your chat account is not linked to a Parley user, so nothing was changed. Link it (`/parley link` in Slack, `/link` in a private chat with the Telegram bot), then answer again.';

/** What the person who answered is told privately (nothing when their answer won: the card says it). */
export function chatNoteOf(outcome: ChatAnswerOutcome): string | undefined {
  switch (outcome.kind) {
    case 'won':
      return undefined;
    case 'unlinked':
      return LINK_NOTE;
    case 'voted':
      return `Your vote counted: ${outcome.votes} of ${outcome.required} matching answers so far.`;
    case 'lost': {
      const chosen = outcome.answers.map((answer) => [...answer.selected_options, ...(answer.custom_text ? [`“${answer.custom_text}”`] : [])].join(', ')).join('; ');
      return outcome.status === 'rejected' ? 'Someone else already declined this question: nothing was changed.' : `Someone else already answered: ${chosen}. Nothing was changed.`;
    }
    case 'refused':
      return outcome.message;
    case 'toggled':
      return outcome.selected.length > 0 ? `Ticked: ${outcome.selected.join(', ')}. Press Submit when done.` : 'Nothing ticked.';
    default:
      return assertNever(outcome);
  }
}
