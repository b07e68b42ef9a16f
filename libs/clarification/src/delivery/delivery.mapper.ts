import { recordedResponse, requestFromRows } from '../bundle/bundle.mapper.js';
import type { Answer, BundleRow, ClarificationResponse } from '../bundle/clarification.types.js';
import type { EventRecord } from '../claim/claim.types.js';
import type { Target, WinnerDelivery } from './delivery.types.js';

/** A claimed bundle's delivery target. */
export function targetOf(rows: readonly BundleRow[]): Target {
  return { request: requestFromRows(rows), messageIds: rows.map((row) => row.id) };
}

function sameAnswer(recorded: Answer, given: Answer | undefined): boolean {
  return (
    given !== undefined &&
    recorded.question_id === given.question_id &&
    recorded.custom_text === given.custom_text &&
    recorded.selected_options.join('\u0000') === given.selected_options.join('\u0000')
  );
}

/** Whether the final rows hold exactly `response` (jsonb does not keep key order, so field by field). */
export function recordsResponse(rows: readonly BundleRow[], response: ClarificationResponse): boolean {
  const recorded = recordedResponse(rows);
  return (
    recorded.rejected === response.rejected &&
    recorded.answers.length === response.answers.length &&
    recorded.answers.every((answer, index) => sameAnswer(answer, response.answers[index]))
  );
}

/** The question event a delivered answer is recorded with. */
export function eventFor(response: ClarificationResponse, delivery: WinnerDelivery): EventRecord {
  return {
    type: response.rejected ? 'REJECTED' : 'ANSWERED',
    payload: {
      response: { answers: response.answers, rejected: response.rejected, reject_reason: response.reject_reason },
      delivery,
      ...(response.receipt === undefined ? {} : { receipt: response.receipt }),
    },
  };
}
