import { z } from 'zod';
import type { SessionAgent } from '#authorization';
import { type AgentAskService, MAX_EXPIRES_IN_SECONDS, MIN_EXPIRES_IN_SECONDS, normalizeQuestions } from '#clarification';
import { askResultSchema } from './ask-result.js';
import { DetachedAskCall } from './detached-ask.js';
import { answeredThroughExchange, defineTool, type McpExchange, type McpRequestContext, type McpTool, type ToolExtra } from '../mcp-tool.js';
import { INPUT_LIMITS } from '#common';

// Strict: a key the creation rules do not know is refused (as REST refuses it), never silently dropped.
const optionSchema = z.strictObject({
  option_id: z.string().optional().describe('Stable id of the option; defaults to q{i}_opt{j}'),
  label: z.string().describe('What the user sees and picks'),
  description: z.string().optional().describe('What choosing it means'),
});

const questionSchema = z.strictObject({
  id: z.string().optional().describe('Question id; defaults to q1..qN'),
  title: z.string().optional(),
  prompt: z.string().describe('The question itself'),
  options: z.array(optionSchema).describe('2 to 6 options'),
  multi_select: z.boolean().optional().describe('true when several options may be picked together'),
  kind: z.enum(['single', 'plan']).optional().describe('"plan": approve or revise a plan by picking exactly one option'),
});

const userIds = z.strictObject({ user_ids: z.array(z.string()).describe('User ids (at most 50)') });

/** Shapes only, strict like the rest (an unknown key is refused naming it): the rules are the service's, the same as REST's. */
const routingSchema = z
  .strictObject({
    answerers: userIds.optional().describe('Only these users (and an admin) may answer'),
    required_answers: z.number().optional().describe('1-10 (default 1): this many identical answers from different people resolve the question'),
    escalation: z
      .array(
        z.strictObject({
          after_seconds: z.number().describe('At least 30, strictly increasing'),
          remind: z.boolean().optional().describe('true: remind the eligible users (a REMINDED event)'),
          reassign_to: userIds.optional().describe('Replace the eligible users (an ESCALATED event)'),
        }),
      )
      .optional()
      .describe('At most 5 steps, each run once'),
  });

const askInput = z.strictObject({
  questions: z.array(questionSchema).describe('1 to 4 questions'),
  context: z.string().max(INPUT_LIMITS.context).optional().describe(`Why you are asking (at most ${INPUT_LIMITS.context} characters)`),
  expires_in_seconds: z
    .number()
    .int()
    .min(MIN_EXPIRES_IN_SECONDS)
    .max(MAX_EXPIRES_IN_SECONDS)
    .optional()
    .describe('Give up after this many seconds: unanswered by then, the question expires and this call fails with code EXPIRED'),
  routing: routingSchema.optional().describe('Who may answer, how many must agree, and what happens when nobody answers (optional)'),
  // Shape only (an object): its rules are the service's, the same as REST's, so a bad one is refused naming the field.
  action: z
    .unknown()
    .meta({ type: 'object', additionalProperties: true })
    .optional()
    .describe(
      'What the answer authorizes, {name, arguments} (optional; name at most 200 characters, arguments a JSON object of at most 64 KB): ' +
        'its digest is signed into the receipt the result carries, so the executor can check the answer was for this action',
    ),
});

export const ASK_TOOL = 'ask_user_question_kandev';

/**
 * The in-session surface: only the tools an agent needs about its own session (rules S2/S3). The ask
 * blocks detached from the SDK's server (see McpExchange): once its bundle is created and its wait
 * parked, the call is answered by a DetachedAskCall on `exchange`.
 */
export function sessionTools(agent: SessionAgent, asks: AgentAskService, exchangeOf: (extra: ToolExtra) => McpExchange, request: McpRequestContext): McpTool[] {
  return [
    defineTool({
      name: ASK_TOOL,
      title: 'Ask the user',
      description:
        'Ask the user 1-4 structured questions and block until they answer, skip or cancel. ' +
        'Progress notifications arrive while waiting; if this call is aborted the question stays pending. ' +
        'With expires_in_seconds, an unanswered question expires at that deadline and the call fails with code EXPIRED.',
      input: askInput,
      output: askResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ questions, context, expires_in_seconds: expiresInSeconds, routing, action }, extra) => {
        // The ask normalizes them first too (same errors): a blocked call keeps only what its result needs.
        const asked = normalizeQuestions(questions).map((question) => ({ id: question.id, multi_select: question.multi_select === true }));
        const { id, signal, _meta: meta } = extra.mcpReq;
        const exchange = exchangeOf(extra);
        const call = new DetachedAskCall(exchange, id, meta?.progressToken, asked, { ...request, tool: ASK_TOOL });
        const parked = await asks.ask(agent, questions, context, { signal, expiresInSeconds, routing, action }, call);
        // Aborted while the bundle was created: the ask's wait has ended, and the call is not answered.
        if (signal.aborted) return answeredThroughExchange();
        return exchange.detach(id, parked);
      },
    }),
  ];
}
