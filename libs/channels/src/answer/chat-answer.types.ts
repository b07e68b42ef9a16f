import type { Answer } from '#clarification';

/** Why a chat answer changed nothing, told to the person privately. */
export type ChatRefusal = 'not_found' | 'not_eligible' | 'closed' | 'already_voted' | 'rate_limited' | 'invalid' | 'busy';

/**
 * What a click or reply in chat came to. `unlinked`: the account answers as nobody yet; `won`: this
 * answer resolved the bundle; `voted`: it counted toward the quorum; `lost`: another answer had won
 * (its answer given back, as every surface tells a loser); `refused`: nothing changed, and why;
 * `toggled`: a tick, kept for the person's Submit.
 */
export type ChatAnswerOutcome =
  | { kind: 'unlinked' }
  | { kind: 'won'; status: string }
  | { kind: 'voted'; votes: number; required: number }
  | { kind: 'lost'; status: string; answers: Answer[] }
  | { kind: 'refused'; reason: ChatRefusal; message: string }
  /** A tick on a multi-select card (Telegram): nothing is answered until Submit; what is ticked now. */
  | { kind: 'toggled'; selected: string[] };

/** One answer from chat: whose account, which bundle, what they chose — and the platform's id for the interaction. */
export interface ChatAnswer {
  interactionId: string;
  accountId: string;
  pendingId: string;
  answers: Answer[];
}
