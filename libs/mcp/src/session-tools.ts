import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { SessionAgent } from '../../authorization/src/index.js';
import type { AgentAskService } from '../../clarification/src/index.js';
import { toolErrorFrom, toolResult } from './mcp-tool-result.js';

// Strict: a key the creation rules do not know is refused (as REST refuses it), never silently dropped.
const optionSchema = z.strictObject({
  option_id: z.string().optional().describe('Stable id of the option; defaults to q{i}_opt{j}'),
  label: z.string().describe('What the user sees and picks'),
  description: z.string().optional(),
});

const questionSchema = z.strictObject({
  id: z.string().optional().describe('Question id; defaults to q1..qN'),
  title: z.string().optional(),
  prompt: z.string().describe('The question itself'),
  options: z.array(optionSchema).describe('2 to 6 options'),
  multi_select: z.boolean().optional().describe('true when several options may be picked together'),
  kind: z.enum(['single', 'plan']).optional().describe('"plan": approve or revise a plan by picking exactly one option'),
});

export const ASK_TOOL = 'ask_user_question_kandev';

/** The in-session surface: only the tools an agent needs about its own session (spec S2/S3). */
export function createSessionMcpServer(agent: SessionAgent, asks: AgentAskService): McpServer {
  const server = new McpServer({ name: 'parley-session', version: '1.0.0' });
  server.registerTool(
    ASK_TOOL,
    {
      description:
        'Ask the user 1-4 structured questions and block until they answer, skip or cancel. ' +
        'Progress notifications arrive while waiting; if this call is aborted the question stays pending.',
      inputSchema: {
        questions: z.array(questionSchema).describe('1 to 4 questions'),
        context: z.string().optional().describe('Why you are asking'),
      },
    },
    async ({ questions, context }, extra) => {
      try {
        const response = await asks.askAndWait(agent, questions, context, {
          signal: extra.signal,
          onProgress: async (tick, pendingId) => {
            const progressToken = extra._meta?.progressToken;
            if (progressToken === undefined) return;
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: tick, message: `waiting for an answer to ${pendingId}` },
            });
          },
        });
        return toolResult(response);
      } catch (error) {
        return toolErrorFrom(error);
      }
    },
  );
  return server;
}
