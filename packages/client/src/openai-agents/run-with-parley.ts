import type { RunResult, RunState } from '@openai/agents';
import type { AnyAgent } from './agent.types.js';
import type { Outcome } from '../core/outcome.types.js';
import type { ApprovalDecision } from '../shared/approval.questions.js';
import { askInterruptions, decideStoredRun, type InterruptionTarget } from './interruptions.js';
import type { StoredRun } from './run-state.store.js';

/** How the adapter runs the agent: `(agent, input) => run(agent, input)`, or a Runner's `run`. */
export type AgentRunner<TAgent extends AnyAgent> = (agent: TAgent, input: string | RunState<unknown, TAgent>) => Promise<RunResult<unknown, TAgent>>;

export interface ParleyRunResult<TAgent extends AnyAgent> {
  result: RunResult<unknown, TAgent>;
  /** Every decision the run was given, in order. */
  decisions: ApprovalDecision[];
  /** The outcome of each bundle the run asked. */
  outcomes: Outcome[];
}

/**
 * Runs from a paused state to the end: each time the run pauses on tool approvals, asks one
 * bundle, stores the run with it, waits, applies the decisions and runs on. A stored run is removed
 * only once the run it continued ended or paused again — a process killed in between resumes it.
 */
async function continueRuns<TAgent extends AnyAgent>(
  target: InterruptionTarget & { agent: TAgent; runner: AgentRunner<TAgent> },
  first: { result: RunResult<unknown, TAgent> } | { stored: StoredRun },
): Promise<ParleyRunResult<TAgent>> {
  const decisions: ApprovalDecision[] = [];
  const outcomes: Outcome[] = [];
  let result = 'result' in first ? first.result : undefined;
  let stored = 'stored' in first ? first.stored : undefined;
  for (;;) {
    if (!stored) {
      if (!result || result.interruptions.length === 0) return { result: result as RunResult<unknown, TAgent>, decisions, outcomes };
      stored = await askInterruptions(target, result);
    }
    const decided = await decideStoredRun(target.parley, target.agent, stored, target.signal);
    decisions.push(...decided.decisions);
    outcomes.push(decided.outcome);
    result = await target.runner(target.agent, decided.state);
    await target.store.remove(stored.pendingId);
    stored = undefined;
  }
}

/** Runs `agent` on `input` with every tool approval decided on Parley (see `continueRuns`). */
export async function runWithParley<TAgent extends AnyAgent>(
  target: InterruptionTarget & { agent: TAgent; runner: AgentRunner<TAgent> },
  input: string,
): Promise<ParleyRunResult<TAgent>> {
  return continueRuns(target, { result: await target.runner(target.agent, input) });
}

/**
 * After a restart: continues every run the store still holds (paused on a bundle when the last
 * process died), each waiting on its own bundle by pending id — none is asked again.
 */
export async function resumeStoredRuns<TAgent extends AnyAgent>(
  target: InterruptionTarget & { agent: TAgent; runner: AgentRunner<TAgent> },
): Promise<ParleyRunResult<TAgent>[]> {
  const results: ParleyRunResult<TAgent>[] = [];
  for (const stored of await target.store.list()) {
    await target.onAsked?.(stored.pendingId);
    // A run continues on the session it was asked on (a later pause asks there too).
    results.push(await continueRuns({ ...target, sessionId: stored.sessionId }, { stored }));
  }
  return results;
}
