import { RunState, type RunToolApprovalItem } from '@openai/agents';
import type { AnyAgent } from './agent.types.js';
import type { Parley } from '../core/parley.client.js';
import { type ApprovalDecision, type ApprovalRequest, approvalQuestion, decisionsOf, MAX_QUESTIONS } from '../shared/approval.questions.js';
import type { RunStateStore, StoredRun } from './run-state.store.js';

/** What the adapter needs to route a run's interruptions to Parley and back. */
export interface InterruptionTarget {
  parley: Parley;
  sessionId: string;
  /** Where the paused run is kept while it waits (a FileRunStateStore survives a restart). */
  store: RunStateStore;
  context?: string;
  /** Called with the bundle's pending id once it is asked and the run is stored. */
  onAsked?: (pendingId: string) => void | Promise<void>;
  signal?: AbortSignal;
}

/** A run paused on tool approvals: what `run()` returned with `interruptions`. */
export interface InterruptedRun<TAgent extends AnyAgent> {
  interruptions: RunToolApprovalItem[];
  state: RunState<unknown, TAgent>;
}

function callIdOf(item: RunToolApprovalItem): string {
  const raw = item.rawItem as { callId?: string; id?: string };
  return raw.callId ?? raw.id ?? item.name ?? 'call';
}

function inputOf(item: RunToolApprovalItem): unknown {
  const text = item.arguments;
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The approval requests of a run's interruptions (each tool call's name and parsed arguments). */
export function requestsOf(interruptions: readonly RunToolApprovalItem[]): ApprovalRequest[] {
  return interruptions.map((item) => ({ id: callIdOf(item), toolName: item.name ?? 'tool', input: inputOf(item) }));
}

/** Applies decisions to a state's pending approvals: `state.approve` or `state.reject` with the person's reason. */
export function applyDecisions(state: RunState<unknown, AnyAgent>, decisions: readonly ApprovalDecision[]): void {
  for (const item of state.getInterruptions()) {
    const decision = decisions.find((candidate) => candidate.id === callIdOf(item));
    if (!decision) continue;
    if (decision.approved) state.approve(item);
    else state.reject(item, { message: decision.reason ? `A person denied this call: ${decision.reason}` : 'A person denied this call.' });
  }
}

/**
 * Turns a run's interruptions into one Parley bundle (one approve/deny question per tool call, at
 * most four), stores the serialized RunState with it, and returns the stored run. Storing comes
 * before anything waits, so a process killed from here on resumes with `decideStoredRun`.
 */
export async function askInterruptions<TAgent extends AnyAgent>(target: InterruptionTarget, paused: InterruptedRun<TAgent>): Promise<StoredRun> {
  const requests = requestsOf(paused.interruptions);
  if (requests.length > MAX_QUESTIONS) throw new Error(`a bundle holds at most ${MAX_QUESTIONS} questions; this run paused on ${requests.length} tool calls`);
  const handle = await target.parley.ask({
    sessionId: target.sessionId,
    questions: requests.map((request, index) => approvalQuestion(request, index)),
    context: target.context ?? 'An agent built on the OpenAI Agents SDK asks to run tools.',
    ...(target.signal ? { signal: target.signal } : {}),
  });
  const stored: StoredRun = { pendingId: handle.pendingId, sessionId: target.sessionId, state: paused.state.toString(), requests, askedAt: new Date().toISOString() };
  await target.store.save(stored);
  await target.onAsked?.(handle.pendingId);
  return stored;
}

/**
 * Waits for a stored run's bundle (by pending id: after a restart too), rebuilds its RunState for
 * `agent` and applies the decisions. The caller continues with `run(agent, state)`.
 */
export async function decideStoredRun<TAgent extends AnyAgent>(
  parley: Parley,
  agent: TAgent,
  stored: StoredRun,
  signal?: AbortSignal,
): Promise<{ state: RunState<unknown, TAgent>; decisions: ApprovalDecision[]; outcome: Awaited<ReturnType<Parley['outcome']>> }> {
  const outcome = await parley.outcome(stored.pendingId, signal ? { signal } : {});
  const state = await RunState.fromString<unknown, TAgent>(agent, stored.state);
  const decisions = decisionsOf(stored.requests, outcome);
  applyDecisions(state, decisions);
  return { state, decisions, outcome };
}
