/** The shapes the inbox works with (GraphQL reads are camelCase; the REST respond envelope is snake_case). */

export interface QuestionOption {
  optionId: string;
  label: string;
  description: string;
}

export interface Question {
  questionId: string;
  title: string;
  prompt: string;
  status: string;
  options: QuestionOption[];
}

export interface Bundle {
  pendingId: string;
  taskId: string;
  sessionId: string;
  createdAt: string;
  context: string;
  questions: Question[];
}

export interface Answer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

/** The `response` of the respond envelope (R12: every key always present). */
export interface Resolution {
  answers: Answer[];
  rejected: boolean;
  reject_reason: string;
}

export type ResolvedStatus = 'answered' | 'rejected';

export interface Workspace {
  id: string;
  name: string;
}

export interface TaskSummary {
  id: string;
  title: string;
  workspaceId: string;
}

export type QuestionEventType = 'ASKED' | 'ANSWERED' | 'REJECTED' | 'CANCELLED' | 'EXPIRED' | 'SUPERSEDED' | 'DETACHED';

export interface QuestionEvent {
  /** Opaque: only ever handed back as `after`, never parsed or compared. */
  id: string;
  type: QuestionEventType;
  pendingId: string;
  taskId: string;
  workspaceId: string;
  response: Resolution | null;
}

/** How a bundle stopped being answerable, as this page learned it. */
export type Settlement =
  | { kind: 'resolved'; status: ResolvedStatus; response: Resolution; by: 'you' | 'elsewhere' }
  | { kind: 'closed'; reason: 'CANCELLED' | 'EXPIRED' | 'SUPERSEDED' | 'INACTIVE' };

export const MAX_ANSWER_CODE_POINTS = 2000;

/** The one exhaustiveness helper of libs/common (dependency-free, so the browser bundle can import it). */
export { assertNever } from '../../../libs/common/src/assert-never.js';
