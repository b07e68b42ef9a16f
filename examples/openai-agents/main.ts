/**
 * An OpenAI Agents SDK agent whose tool needs approval: the run pauses on the interruption, the
 * adapter asks it as one Parley bundle and stores the serialized RunState with it (a file keyed by
 * the pending id), and the decision is applied with `state.approve` / `state.reject`. Killed while
 * it waits, the next start finds the stored run and resumes it on the same bundle.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { FileRunStateStore, resumeStoredRuns, runWithParley } from '@parley/client/openai-agents';
import { exampleEnv, finishRun, loadRun, openRun, printResult, printWaiting, runExample } from '../shared/example.runner.js';
import { RefundingModel } from './scripted.model.js';

setTracingDisabled(true);
const env = exampleEnv('openai-agents');
/** Every refund the tool really issued, one line each: a resumed run must not issue one twice. */
const REFUNDS_LOG = process.env.REFUNDS_LOG || path.join(env.stateDir, 'refunds.log');

const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order',
  parameters: { type: 'object', properties: { order: { type: 'string' }, amount_eur: { type: 'number' } }, required: ['order', 'amount_eur'], additionalProperties: false },
  strict: true,
  needsApproval: true,
  execute: async (input) => {
    const { order, amount_eur: amount } = input as { order: string; amount_eur: number };
    await appendFile(REFUNDS_LOG, `${JSON.stringify({ order, amount, pid: process.pid })}\n`);
    return `refunded ${amount} EUR on ${order}`;
  },
});

const agent = new Agent({ name: 'refunds', instructions: 'Refund orders when asked.', model: new RefundingModel(), tools: [issueRefund] });

runExample(env, async () => {
  const store = new FileRunStateStore(path.join(env.stateDir, 'runs'));
  const previous = await loadRun(env);
  const { sessionId } = previous ?? (await openRun(env, 'Agents SDK example: refund A-1042'));
  const target = { parley: env.parley, sessionId, store, agent, runner: (a: typeof agent, input: Parameters<typeof run>[1]) => run(a, input), onAsked: printWaiting };
  // A run stored by a process that died while it waited resumes on its bundle; otherwise a new run.
  const resumed = previous ? await resumeStoredRuns(target) : [];
  const result = resumed[0] ?? (await runWithParley(target, 'Refund order A-1042 (129 EUR).'));
  await finishRun(env);
  const outcome = result.outcomes[0];
  if (outcome?.status === 'rejected') return printResult({ rejected: outcome.reason });
  if (outcome && outcome.status !== 'answered') return printResult({ [outcome.status]: outcome.pendingId });
  // The decisions as the run received them (state.approve / state.reject), and how it ended.
  printResult({ answered: { decisions: result.decisions, finalOutput: result.result.finalOutput } });
});
