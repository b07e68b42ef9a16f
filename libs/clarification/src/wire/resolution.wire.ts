import { z } from 'zod';
import { INPUT_LIMITS } from '#common';

/**
 * The resolution: what answering a bundle returns on every surface (REST respond, the MCP answer
 * tools, the GraphQL answer mutations), declared once. MCP publishes these schemas as they are, the
 * OpenAPI document is generated from them (wire-openapi.ts), and the GraphQL models are checked
 * against them by a test (GraphQL names its fields in camelCase).
 */

/** One question's answer; the same limits a submitted answer is held to. */
export const answerWire = z.strictObject({
  question_id: z.string().min(1),
  selected_options: z.array(z.string()),
  custom_text: z.string().max(INPUT_LIMITS.answerText).describe(`At most ${INPUT_LIMITS.answerText} code points`),
});

export const resolutionResponseWire = z
  .object({
    answers: z.array(answerWire),
    rejected: z.boolean(),
    reject_reason: z.string().describe('Always "" on a replay (the reason is not stored)'),
  })
  .describe('What the winning answer said: its answers, or the rejection and its reason.');

export const voteReceiptWire = z
  .object({
    replayed: z.boolean().describe('The same voter sent the same answer again'),
    votes: z.number(),
    required_answers: z.number(),
  })
  .describe('A recorded vote that did not resolve its bundle (status pending).');

export const resolutionWire = z
  .object({
    claimed: z.boolean().describe('true: this call won the claim; false: another answer won first (its answer is reported)'),
    status: z.enum(['answered', 'rejected', 'pending']).describe('answered or rejected; pending: a vote of a routed bundle, recorded; not resolved yet'),
    response: resolutionResponseWire,
    vote: voteReceiptWire.optional().describe('Only for a vote that did not resolve the bundle'),
    receipt: z
      .string()
      .nullable()
      .describe("The resolution's signed receipt (compact JWS) — the same for the winner and every loser; null for a vote that did not resolve the bundle"),
  })
  .describe('claimed:false means another answer won; response is what it said.');

/** What the asking agent receives once its bundle is answered (the wait's result, the resume's payload). */
export const clarificationResponseWire = z.object({
  pending_id: z.string(),
  answers: z.array(answerWire),
  rejected: z.boolean(),
  reject_reason: z.string(),
  responded_at: z.string().meta({ format: 'date-time' }),
  receipt: z.string().optional().describe("The resolution's signed receipt (compact JWS)"),
});

/** REST's respond body: the resolution with `success` (every REST write says it). */
export const respondResultWire = z.object({ success: z.boolean().meta({ example: true }), ...resolutionWire.shape });

export type AnswerWire = z.infer<typeof answerWire>;
export type ResolutionResponseWire = z.infer<typeof resolutionResponseWire>;
export type VoteReceiptWire = z.infer<typeof voteReceiptWire>;
export type ClarificationResponseWire = z.infer<typeof clarificationResponseWire>;
export type ResolutionWire = z.infer<typeof resolutionWire>;
