import { Command, interrupt } from '@langchain/langgraph';
import type { Parley } from '../core/parley.client.js';
import { humanReply, type HumanQuestionsInput, type HumanReply } from '../shared/human-question.types.js';

/**
 * Inside a graph node: pauses the thread on `interrupt()` with a Parley-shaped payload (1–4
 * questions), and returns the reply it is resumed with. Like every interrupt, the node runs again
 * from its start on resume: put side effects after this call.
 */
export function askHuman(input: HumanQuestionsInput): HumanReply {
  return interrupt<HumanQuestionsInput, HumanReply>(input);
}

/** An interrupt as the thread's state reports it. */
interface PendingInterrupt {
  id?: string;
  value?: unknown;
}

/** What `driveThread` needs of a compiled graph (checkpointer attached). */
export interface InterruptibleGraph<TOutput> {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<TOutput>;
  getState(config: { configurable: { thread_id: string } }): Promise<{ tasks: ReadonlyArray<{ interrupts: PendingInterrupt[] }>; config?: { configurable?: Record<string, unknown> } }>;
}

export interface ThreadTarget<TOutput> {
  parley: Parley;
  sessionId: string;
  graph: InterruptibleGraph<TOutput>;
  threadId: string;
  /** Turns an interrupt's payload into questions; default: the payload is HumanQuestionsInput (what `askHuman` sends). */
  toQuestions?: (payload: unknown) => HumanQuestionsInput;
  onAsked?: (pendingId: string) => void | Promise<void>;
  signal?: AbortSignal;
}

function defaultQuestions(payload: unknown): HumanQuestionsInput {
  const input = payload as Partial<HumanQuestionsInput> | null;
  if (!input || !Array.isArray(input.questions)) throw new Error('the interrupt payload is not { questions: [...] }: pass toQuestions to map it');
  return { questions: input.questions, ...(typeof input.context === 'string' ? { context: input.context } : {}) };
}

/** The tag written into a bundle's context that names the thread and interrupt it was asked for. */
export function interruptMarker(threadId: string, interruptId: string): string {
  return `[langgraph thread ${threadId}, interrupt ${interruptId}]`;
}

/** The thread's pending interrupts, and whether it has run at all (it has a checkpoint). */
async function threadOf<TOutput>(target: ThreadTarget<TOutput>): Promise<{ pending: PendingInterrupt[]; started: boolean }> {
  const state = await target.graph.getState({ configurable: { thread_id: target.threadId } });
  return { pending: state.tasks.flatMap((task) => task.interrupts), started: state.config?.configurable?.checkpoint_id !== undefined };
}

/**
 * The reply to one interrupt: the bundle asked for it before (found by the marker in its context —
 * so a restarted process waits on that bundle and never asks again), or a new one; then its outcome.
 */
async function replyTo<TOutput>(target: ThreadTarget<TOutput>, pending: PendingInterrupt): Promise<HumanReply> {
  const input = (target.toQuestions ?? defaultQuestions)(pending.value);
  const marker = interruptMarker(target.threadId, pending.id ?? 'interrupt');
  const signal = target.signal ? { signal: target.signal } : {};
  let pendingId = await target.parley.findBundle(target.sessionId, marker, signal);
  if (!pendingId) {
    const context = [input.context ?? 'A LangGraph agent is waiting for your answer.', marker].join('\n\n');
    pendingId = (await target.parley.ask({ sessionId: target.sessionId, questions: input.questions, context, ...signal })).pendingId;
  }
  await target.onAsked?.(pendingId);
  return humanReply(input.questions, await target.parley.outcome(pendingId, signal));
}

/**
 * Runs a thread to its end with every `interrupt()` answered on Parley: starts it with `input` when
 * it has never run, and while it is paused, asks one bundle per interrupt and resumes with
 * `new Command({ resume })`. The thread's checkpointer is the durable state: a process restarted
 * while the thread waits calls this again (same arguments) and resumes it, on the same bundle; a
 * thread that already ran to its end is left alone (so a restart never starts it over). Once the
 * resumed node's checkpoint is written, the reply is never applied again.
 */
export async function driveThread<TOutput>(target: ThreadTarget<TOutput>, input?: unknown): Promise<{ output: TOutput | undefined; replies: HumanReply[] }> {
  const config = { configurable: { thread_id: target.threadId } };
  const replies: HumanReply[] = [];
  const thread = await threadOf(target);
  let pending = thread.pending;
  let output: TOutput | undefined;
  if (pending.length === 0) {
    if (input === undefined || thread.started) return { output, replies };
    output = await target.graph.invoke(input, config);
    pending = (await threadOf(target)).pending;
  }
  while (pending.length > 0) {
    const answered: HumanReply[] = [];
    for (const one of pending) answered.push(await replyTo(target, one));
    replies.push(...answered);
    const resume = pending.length === 1 ? answered[0] : Object.fromEntries(pending.map((one, index) => [one.id ?? String(index), answered[index]]));
    output = await target.graph.invoke(new Command({ resume }), config);
    pending = (await threadOf(target)).pending;
  }
  return { output, replies };
}
