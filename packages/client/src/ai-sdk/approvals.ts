import type { ModelMessage, Tool, ToolApprovalResponse } from 'ai';
import type { Outcome } from '../core/outcome.types.js';
import type { Parley } from '../core/parley.client.js';
import { type ApprovalDecision, type ApprovalRequest, approvalQuestion, decisionsOf, inBundles } from '../shared/approval.questions.js';

/** The `tool-approval-request` part the AI SDK puts in a step's content when a tool needs approval. */
export interface ToolApprovalRequestPart {
  type: 'tool-approval-request';
  approvalId: string;
  toolCall: { toolName: string; input: unknown; toolCallId: string };
}

/** Where approval bundles go, and who hears of them. */
export interface ApprovalTarget {
  parley: Parley;
  sessionId: string;
  /** Shown to the person with the questions (default: says an agent asks to run tools). */
  context?: string;
  /** Called with each bundle's pending id once it is asked (to print it, or store it for a restart). */
  onAsked?: (pendingId: string) => void | Promise<void>;
  signal?: AbortSignal;
}

/** Marks a tool as needing approval the AI SDK way (`needsApproval`), so each call pauses the run for a Parley decision. */
export function withParleyApproval<T extends Tool>(tool: T): T {
  return { ...tool, needsApproval: true };
}

/** The approval requests among a step's (or a whole result's) content parts. */
export function approvalRequestsOf(content: ReadonlyArray<{ type: string }>): ToolApprovalRequestPart[] {
  return content.filter((part): part is ToolApprovalRequestPart => part.type === 'tool-approval-request');
}

/**
 * Asks people about `requests` — one bundle of up to four approve/deny questions, each showing the
 * tool's name and arguments — waits for the one answer, and returns the decisions with the `tool`
 * message that continues the run (its `tool-approval-response` parts).
 */
export async function askApprovals(
  target: ApprovalTarget,
  requests: readonly ToolApprovalRequestPart[],
): Promise<{ pendingIds: string[]; outcomes: Outcome[]; decisions: ApprovalDecision[]; message: ModelMessage }> {
  const pendingIds: string[] = [];
  const outcomes: Outcome[] = [];
  const decisions: ApprovalDecision[] = [];
  const asked: ApprovalRequest[] = requests.map((part) => ({ id: part.approvalId, toolName: part.toolCall.toolName, input: part.toolCall.input }));
  for (const bundle of inBundles(asked)) {
    const handle = await target.parley.ask({
      sessionId: target.sessionId,
      questions: bundle.map((request, index) => approvalQuestion(request, index)),
      context: target.context ?? 'An agent built on the AI SDK asks to run tools.',
      ...(target.signal ? { signal: target.signal } : {}),
    });
    pendingIds.push(handle.pendingId);
    await target.onAsked?.(handle.pendingId);
    const outcome = await handle.wait(target.signal ? { signal: target.signal } : {});
    outcomes.push(outcome);
    decisions.push(...decisionsOf(bundle, outcome));
  }
  const content: ToolApprovalResponse[] = decisions.map((decision) => ({
    type: 'tool-approval-response',
    approvalId: decision.id,
    approved: decision.approved,
    ...(decision.reason ? { reason: decision.reason } : {}),
  }));
  return { pendingIds, outcomes, decisions, message: { role: 'tool', content } };
}

/** What `runWithApprovals` needs of a generateText (or similar) result. */
export interface StepResult {
  content: ReadonlyArray<{ type: string }>;
  response: { messages: ModelMessage[] };
}

/**
 * Runs a conversation to its end with every tool approval decided on Parley: calls `generate` with
 * the messages, and while its result holds approval requests, asks them (one bundle per step),
 * appends the model's messages and the decisions, and calls `generate` again — the AI SDK then runs
 * the approved tools and tells the model of the denied ones.
 */
export async function runWithApprovals<R extends StepResult>(
  target: ApprovalTarget & { messages: ModelMessage[]; generate: (messages: ModelMessage[]) => Promise<R> },
): Promise<{ result: R; messages: ModelMessage[]; decisions: ApprovalDecision[]; pendingIds: string[]; outcomes: Outcome[]; responses: ModelMessage[] }> {
  const messages = [...target.messages];
  const outcomes: Outcome[] = [];
  const responses: ModelMessage[] = [];
  const decisions: ApprovalDecision[] = [];
  const pendingIds: string[] = [];
  for (;;) {
    const result = await target.generate(messages);
    const requests = approvalRequestsOf(result.content);
    if (requests.length === 0) return { result, messages: [...messages, ...result.response.messages], decisions, pendingIds, outcomes, responses };
    const asked = await askApprovals(target, requests);
    messages.push(...result.response.messages, asked.message);
    decisions.push(...asked.decisions);
    pendingIds.push(...asked.pendingIds);
    outcomes.push(...asked.outcomes);
    responses.push(asked.message);
  }
}
