import { jsonSchema, tool } from 'ai';
import type { Parley } from '../core/parley.client.js';
import { HUMAN_QUESTIONS_SCHEMA, humanReply, type HumanQuestionsInput, type HumanReply } from '../shared/human-question.types.js';

/**
 * A tool the model calls to ask people 1–4 structured questions: it asks one Parley bundle and
 * returns its one outcome (the chosen options by id and label, the free text — or why there is
 * none) as the tool's result. The run blocks meanwhile; the AI SDK's abort signal ends the wait.
 */
export function askHumanTool(options: {
  parley: Parley;
  sessionId: string;
  description?: string;
  onAsked?: (pendingId: string) => void | Promise<void>;
}) {
  return tool({
    description:
      options.description ??
      'Ask a person 1–4 multiple-choice questions when you need a decision or information only they have. Blocks until they answer.',
    inputSchema: jsonSchema<HumanQuestionsInput>(HUMAN_QUESTIONS_SCHEMA as unknown as Parameters<typeof jsonSchema>[0]),
    execute: async (input: HumanQuestionsInput, { abortSignal }: { abortSignal?: AbortSignal }): Promise<HumanReply> => {
      const handle = await options.parley.ask({
        sessionId: options.sessionId,
        questions: input.questions,
        ...(input.context !== undefined ? { context: input.context } : {}),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      await options.onAsked?.(handle.pendingId);
      return humanReply(input.questions, await handle.wait(abortSignal ? { signal: abortSignal } : {}));
    },
  });
}
