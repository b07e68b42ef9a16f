import type { Caller } from '#authorization';
import type { ClarificationRequest, ClarificationResponse } from '../bundle/clarification.types.js';

export interface AskInput {
  sessionId: string;
  /** Who asks: the session's agent, the identity that opened the session, or an admin (its receipt names them). */
  askedBy: { kind: Caller['kind']; id: string | null };
  taskId?: string;
  questions: unknown;
  context?: unknown;
  /** Optional deadline: the bundle expires this many seconds after it was asked, unanswered. */
  expiresInSeconds?: unknown;
  /** Optional routing: who may answer, how many must agree, the escalation ladder (validated on every surface alike). */
  routing?: unknown;
  /** Optional action the answer authorizes: `{name, arguments}` (validated on every surface alike). */
  action?: unknown;
  /** The asker is the session's agent and waits here at once (its in-session ask). */
  agentWaitsHere?: boolean;
}

export interface AskResult {
  request: ClarificationRequest;
  /** False when an identical still-pending bundle of the session was returned instead. */
  created: boolean;
  /** The one answer of the agent's retried ask, when its bundle was resolved meanwhile (AskService.ask). */
  resolved?: ClarificationResponse;
}
