import type { Outcome } from '../core/outcome.types.js';
import type { Question } from '../core/wire.types.js';

/** A bundle holds at most this many questions, so at most this many approvals are asked together. */
export const MAX_QUESTIONS = 4;
const PROMPT_LIMIT = 4000;
export const APPROVE = 'approve';
export const DENY = 'deny';

/** One tool call awaiting a person's approval, whatever framework paused on it. */
export interface ApprovalRequest {
  /** The framework's id of the request (the AI SDK's approvalId, the Agents SDK's call id). */
  id: string;
  toolName: string;
  /** The call's arguments, as the model gave them. */
  input: unknown;
}

/** The person's decision on one request. */
export interface ApprovalDecision {
  id: string;
  toolName: string;
  approved: boolean;
  /** The person's note (an answer's text, or the rejection's reason). */
  reason: string;
}

function argumentsText(input: unknown): string {
  let text: string;
  try {
    text = typeof input === 'string' ? input : (JSON.stringify(input, null, 2) ?? String(input));
  } catch {
    text = String(input);
  }
  return text;
}

/** The question id of request number `index` of a bundle. */
export function approvalQuestionId(index: number): string {
  return `approval_${index + 1}`;
}

/** The approve / deny question showing the tool's name and its arguments (trimmed to the prompt's limit). */
export function approvalQuestion(request: ApprovalRequest, index: number): Question {
  const head = `The agent wants to call the tool \`${request.toolName}\` with these arguments:\n\n`;
  const tail = '\n\nApprove this call?';
  let args = argumentsText(request.input);
  const room = PROMPT_LIMIT - head.length - tail.length;
  if (args.length > room) args = `${args.slice(0, room - 20)}\n… (truncated)`;
  return {
    id: approvalQuestionId(index),
    title: `Approve ${request.toolName}?`.slice(0, 500),
    prompt: `${head}${args}${tail}`,
    options: [
      { option_id: APPROVE, label: 'Approve', description: `Run ${request.toolName} with these arguments` },
      { option_id: DENY, label: 'Deny', description: 'Do not run it; the agent is told it was denied' },
    ],
  };
}

/**
 * The decisions a bundle's outcome stands for: an answer approves each call whose question chose
 * "approve"; a rejection, or the bundle going away unanswered (expired, cancelled, superseded),
 * denies every call — an agent never runs a tool nobody approved.
 */
export function decisionsOf(requests: readonly ApprovalRequest[], outcome: Outcome): ApprovalDecision[] {
  return requests.map((request, index) => {
    if (outcome.status === 'answered') {
      const answer = outcome.answers.find((candidate) => candidate.question_id === approvalQuestionId(index));
      return { id: request.id, toolName: request.toolName, approved: answer?.selected_options.includes(APPROVE) === true, reason: answer?.custom_text ?? '' };
    }
    const reason = outcome.status === 'rejected' ? outcome.reason : `the approval request was ${outcome.status} before anyone answered`;
    return { id: request.id, toolName: request.toolName, approved: false, reason };
  });
}

/** Splits requests into bundles of at most MAX_QUESTIONS. */
export function inBundles<T>(items: readonly T[]): T[][] {
  const bundles: T[][] = [];
  for (let start = 0; start < items.length; start += MAX_QUESTIONS) bundles.push(items.slice(start, start + MAX_QUESTIONS));
  return bundles;
}
