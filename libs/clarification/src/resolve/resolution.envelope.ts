import type { TerminalStatus } from '../bundle/clarification.types.js';
import type { ResolutionResponse } from '../bundle/resolution.types.js';
import type { BallotReceipt } from '../routing/routing.types.js';
import type { ResolutionWire } from '../wire/resolution.wire.js';

export interface Resolution {
  claimed: boolean;
  /** `pending` only for a routed bundle's vote that did not resolve it (then `vote` says how far the quorum is). */
  status: TerminalStatus | 'pending';
  response: ResolutionResponse;
  vote?: BallotReceipt;
  /** The resolution's signed receipt — the same one for the winner and every loser; null for a vote that did not resolve the bundle. */
  receipt: string | null;
}

/**
 * R12: the resolution envelope always carries every key — `[]`, `""` and `false` included — for
 * REST, MCP and GraphQL alike. Built field by field so nothing can be omitted.
 */
export function serializeResolution(resolution: Resolution): ResolutionWire {
  return {
    claimed: resolution.claimed,
    status: resolution.status,
    receipt: resolution.receipt,
    response: {
      answers: resolution.response.answers.map((answer) => ({
        question_id: answer.question_id ?? '',
        selected_options: [...(answer.selected_options ?? [])],
        custom_text: answer.custom_text ?? '',
      })),
      rejected: resolution.response.rejected,
      reject_reason: resolution.response.reject_reason ?? '',
    },
    ...(resolution.vote === undefined ? {} : { vote: { ...resolution.vote } }),
  };
}
