import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** Whether the prompt already holds the result (or the denial) of the deploy call. */
function deployFinished(options: LanguageModelV3CallOptions): string | undefined {
  for (const message of options.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolCallId === 'call-deploy') return JSON.stringify(part.output);
    }
  }
  return undefined;
}

/**
 * The AI SDK's own test double, scripted like a model that wants to deploy: asked first, it calls
 * the `deploy` tool; once the prompt holds that call's result (run or denied), it says so and stops.
 * It reads only the prompt, so it behaves the same in any process.
 */
export function deployingModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      const finished = deployFinished(options);
      if (finished !== undefined) {
        return Promise.resolve({ content: [{ type: 'text', text: `Deploy finished: ${finished}` }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] });
      }
      return Promise.resolve({
        content: [{ type: 'tool-call', toolCallId: 'call-deploy', toolName: 'deploy', input: JSON.stringify({ service: 'checkout', environment: 'production' }) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      });
    },
  });
}
