export { askInterruptions, decideStoredRun, applyDecisions, requestsOf, type InterruptionTarget, type InterruptedRun } from './interruptions.js';
export { runWithParley, resumeStoredRuns, type AgentRunner, type ParleyRunResult } from './run-with-parley.js';
export { FileRunStateStore, MemoryRunStateStore, type RunStateStore, type StoredRun } from './run-state.store.js';
export type { ApprovalDecision, ApprovalRequest } from '../shared/approval.questions.js';
