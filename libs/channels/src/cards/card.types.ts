/** A question as a card shows it. */
export interface CardQuestion {
  id: string;
  title: string;
  prompt: string;
  options: { id: string; label: string }[];
  multiSelect: boolean;
}

/**
 * What a card shows of a bundle, platform-neutral: the questions, the action an answer authorizes,
 * who it is assigned to and how far its quorum is — and, once it is closed, what became of it.
 */
export interface CardView {
  pendingId: string;
  inboxUrl: string;
  context: string;
  questions: CardQuestion[];
  action: { name: string; arguments: Record<string, unknown> } | null;
  assignees: string[];
  quorum: { votes: number; required: number } | null;
  /** Whether it still takes answers (buttons shown). */
  open: boolean;
  /** What won, by whom and where — or why it closed; null while open. */
  outcome: string | null;
}

/** A card once a platform has it: where it was posted, and the message to edit. */
export interface PostedCard {
  channelRef: string;
  messageRef: string;
}

/** What a card is when a platform has the room for buttons: one question, single-select, a handful of options. */
export const MAX_BUTTONS = 5;

/** Slack's limit on a checkboxes element: a multi-select question with more options goes to the modal. */
export const MAX_TOGGLES = 10;

/** One multi-select question with a handful of options: toggles and a Submit where the platform keeps each person's toggles. */
export function answersWithToggles(view: CardView): boolean {
  const [only, ...more] = view.questions;
  return only !== undefined && more.length === 0 && only.multiSelect && only.options.length > 0 && only.options.length <= MAX_TOGGLES;
}

export function answersWithButtons(view: CardView): boolean {
  const [only, ...more] = view.questions;
  return only !== undefined && more.length === 0 && !only.multiSelect && only.options.length > 0 && only.options.length <= MAX_BUTTONS;
}
