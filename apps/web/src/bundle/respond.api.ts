import { errorMessage, requestJson } from '../http.js';
import type { Answer, Resolution, ResolvedStatus } from '../inbox/inbox.types.js';

export type RespondBody = { answers: Answer[]; rejected: false } | { rejected: true; reject_reason: string };

export const SKIP: RespondBody = { rejected: true, reject_reason: 'User skipped' };

/** Where a 400's message belongs: next to a question (by index, as sent), the skip, or the form. */
export type InvalidField = { question: number } | 'reject_reason' | 'form';

/** Every outcome of POST /api/v1/clarification/:id/respond (R10), plus the ways the request itself fails. */
export type RespondOutcome =
  | { kind: 'won'; status: ResolvedStatus; response: Resolution }
  | { kind: 'lost'; status: ResolvedStatus; response: Resolution }
  | { kind: 'voted'; votes: number; requiredAnswers: number }
  | { kind: 'not-eligible'; message: string }
  | { kind: 'inactive' }
  | { kind: 'invalid'; message: string; field: InvalidField }
  | { kind: 'not-found' }
  | { kind: 'retryable'; message: string }
  | { kind: 'network' }
  | { kind: 'signed-out' };

interface Envelope {
  success: boolean;
  claimed?: boolean;
  status: ResolvedStatus | 'pending';
  response: Resolution;
  vote?: { votes: number; required_answers: number };
}

function invalidField(message: string): InvalidField {
  const question = /^answers\[(\d+)\]/.exec(message);
  if (question) return { question: Number(question[1]) };
  if (message.startsWith('reject_reason')) return 'reject_reason';
  return 'form';
}

/** The page answers through REST respond, and says so: the answer is recorded as given `via web` (docs/api/rest.md, "Who answered"). */
const FROM_THE_PAGE = { 'x-parley-surface': 'web' };

/** Exactly one POST per call, with the session cookie (W1). */
export async function respond(pendingId: string, body: RespondBody): Promise<RespondOutcome> {
  let response: Response;
  try {
    response = await requestJson('POST', `/api/v1/clarification/${encodeURIComponent(pendingId)}/respond`, body, FROM_THE_PAGE);
  } catch {
    return { kind: 'network' };
  }
  switch (response.status) {
    case 200: {
      const envelope = (await response.json()) as Envelope;
      // A routed bundle's vote, recorded: nothing is final yet.
      if (envelope.status === 'pending') return { kind: 'voted', votes: envelope.vote?.votes ?? 0, requiredAnswers: envelope.vote?.required_answers ?? 0 };
      // W2/W3: claimed:false is a successful submit whose result is the winner's response, not ours.
      return envelope.claimed === false
        ? { kind: 'lost', status: envelope.status, response: envelope.response }
        : { kind: 'won', status: envelope.status, response: envelope.response };
    }
    case 400: {
      const message = await errorMessage(response);
      return { kind: 'invalid', message, field: invalidField(message) };
    }
    case 401:
      return { kind: 'signed-out' };
    case 403:
      return { kind: 'not-eligible', message: await errorMessage(response) };
    case 404:
      return { kind: 'not-found' };
    case 409:
      return { kind: 'inactive' };
    default:
      return { kind: 'retryable', message: await errorMessage(response) };
  }
}
