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

/** Who answered a bundle, through which surface, and when (GraphQL `ResolvedBy`). */
export interface ResolvedBy {
  kind: string;
  userId: string | null;
  name: string | null;
  surface: string;
  at: string;
}

export interface Bundle {
  pendingId: string;
  taskId: string;
  sessionId: string;
  createdAt: string;
  context: string;
  questions: Question[];
  /** Read for one bundle only (question(pendingId)); absent in the list. */
  resolvedBy?: ResolvedBy | null;
  /** Whether the signed-in person may answer it (a routed bundle names its answerers). */
  eligible: boolean;
  /** Who is assigned and how many identical answers resolve it; null when asked without routing. */
  routing: Routing | null;
  /** What an answer authorizes the agent to do; null when asked without an action. `arguments` is JSON text. */
  action: Action | null;
}

export interface Action {
  name: string;
  arguments: string;
}

/** An action's arguments as the inbox shows them: pretty-printed JSON (the text as sent if it is not JSON). */
export function prettyArguments(action: Action): string {
  try {
    return JSON.stringify(JSON.parse(action.arguments), null, 2);
  } catch {
    return action.arguments;
  }
}

export interface Routing {
  assignedTo: { userId: string; name: string }[];
  requiredAnswers: number;
}

/** Who a routed bundle is assigned to, as the inbox says it. */
export function assignedLine(routing: Routing | null): string {
  if (routing === null) return '';
  const names = routing.assignedTo.map((user) => user.name || user.userId);
  const assigned = names.length > 0 ? `Assigned to ${names.join(', ')}` : '';
  const quorum = routing.requiredAnswers > 1 ? `${routing.requiredAnswers} identical answers needed` : '';
  return [assigned, quorum].filter((part) => part !== '').join(' · ');
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

export type QuestionEventType = 'ASKED' | 'ANSWERED' | 'REJECTED' | 'CANCELLED' | 'EXPIRED' | 'SUPERSEDED' | 'DETACHED' | 'REMINDED' | 'ESCALATED';

export interface QuestionEvent {
  /** Opaque: only ever handed back as `after`, never parsed or compared. */
  id: string;
  type: QuestionEventType;
  pendingId: string;
  taskId: string;
  workspaceId: string;
  response: Resolution | null;
  resolvedBy: ResolvedBy | null;
}

/** How a bundle stopped being answerable, as this page learned it. */
export type Settlement =
  | { kind: 'resolved'; status: ResolvedStatus; response: Resolution; by: 'you' | 'elsewhere'; resolvedBy?: ResolvedBy | null }
  | { kind: 'closed'; reason: 'CANCELLED' | 'EXPIRED' | 'SUPERSEDED' | 'INACTIVE' };

export const MAX_ANSWER_CODE_POINTS = 2000;

/** The one exhaustiveness helper of libs/common (dependency-free, so the browser bundle can import it). */
export { assertNever } from '../../../../libs/common/src/errors/assert-never.js';
