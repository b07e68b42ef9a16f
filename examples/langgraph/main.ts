/**
 * A LangGraph.js agent that pauses on `interrupt()`: the adapter turns the interrupt's payload into
 * a Parley bundle and resumes the thread with `new Command({ resume })` from the answer. The
 * thread's checkpointer (a file here) is the durable state: killed while it waits, the next start
 * finds the thread still interrupted, finds the bundle it asked (its context names the interrupt)
 * and resumes — it never asks twice, and the resumed node acts once.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { driveThread } from '@parley/client/langgraph';
import { exampleEnv, finishRun, loadRun, openRun, printResult, printWaiting, type RunState, runExample, saveRun } from '../shared/example.runner.js';
import { FileCheckpointer } from './file.checkpointer.js';
import { rolloutGraph } from './rollout.graph.js';

const env = exampleEnv('langgraph');
const ACTIONS_LOG = process.env.ACTIONS_LOG || path.join(env.stateDir, 'actions.log');

runExample(env, async () => {
  const previous = await loadRun<RunState & { threadId?: string }>(env);
  const run = previous?.threadId ? previous : { ...(await openRun(env, 'LangGraph example: roll out checkout')), threadId: randomUUID() };
  await saveRun(env, run);
  const threadId = run.threadId as string;
  const graph = rolloutGraph(new FileCheckpointer(path.join(env.stateDir, 'checkpoints.json')), ACTIONS_LOG);
  const { replies } = await driveThread({ parley: env.parley, sessionId: run.sessionId, graph, threadId, onAsked: printWaiting }, { service: 'checkout' });
  await finishRun(env);
  const reply = replies[0];
  if (!reply) return printResult({ finished: threadId });
  if (reply.status === 'rejected') return printResult({ rejected: reply.reason });
  if (reply.status !== 'answered') return printResult({ [reply.status]: reply.pending_id });
  // The value the thread was resumed with (new Command({ resume })), as the node received it.
  printResult({ answered: reply });
});
