import { z } from 'zod';
import { INPUT_LIMITS } from '#common';
import { actionWire } from '#receipts';

/**
 * The pending bundle: what list_pending_questions_kandev, GET /api/v1/clarification and the GraphQL
 * pendingQuestions connection report for each bundle, declared once (see resolution.wire.ts for how
 * each surface derives from it).
 */

/** At most this many answerers a routed bundle names. */
export const MAX_ANSWERERS = 50;

/** A question's option as listed: every field present (an asker's absent id was generated). */
export const questionOptionWire = z.object({ option_id: z.string(), label: z.string(), description: z.string() });

export const pendingQuestionWire = z.object({
  question_id: z.string(),
  title: z.string(),
  prompt: z.string(),
  status: z.string().describe('pending, answered, rejected, expired or cancelled'),
  options: z.array(questionOptionWire),
});

/** A routed bundle's answerers, as asked and as listed. */
export const userIdsWire = z.strictObject({
  user_ids: z
    .array(z.string().min(1).max(INPUT_LIMITS.id))
    .min(1)
    .max(MAX_ANSWERERS)
    .meta({ uniqueItems: true }),
});

export const assignedUserWire = z.object({ user_id: z.string(), name: z.string() });

export const routingViewWire = z
  .object({
    answerers: userIdsWire.nullable().describe('null: whoever sees the bundle may answer'),
    assigned_to: z.array(assignedUserWire),
    required_answers: z.number(),
  })
  .describe('Who may answer a bundle and how many identical answers resolve it.');

export const pendingBundleWire = z
  .object({
    pending_id: z.string(),
    task_id: z.string(),
    session_id: z.string(),
    created_at: z.string().meta({ format: 'date-time' }).describe('RFC 3339 UTC: the earliest of its questions'),
    age_seconds: z.number(),
    context: z.string(),
    questions: z.array(pendingQuestionWire),
    action: actionWire.optional().describe('Only for a bundle asked with an action: what an answer authorizes'),
    action_digest: z.string().optional().describe('With action: SHA-256 (hex) of the RFC 8785 canonical JSON of the action'),
    eligible: z
      .boolean()
      .optional()
      .describe('A routed bundle only: whether the caller may answer it (false: answering is refused with NOT_ELIGIBLE)'),
    routing: routingViewWire.optional().describe('A routed bundle only: who is assigned and how many identical answers resolve it'),
  })
  .describe('A clarification bundle: 1-4 questions an agent asked together.');

export const pendingPageWire = z.object({
  bundles: z.array(pendingBundleWire),
  count: z.number().describe('Bundles on this page'),
  next_cursor: z.string().describe('Pass as `cursor` for the next page; "" on the last page'),
});

export type PendingQuestionView = z.infer<typeof pendingQuestionWire>;
export type PendingBundleView = z.infer<typeof pendingBundleWire>;
export type PendingPage = z.infer<typeof pendingPageWire>;
export type RoutingView = z.infer<typeof routingViewWire>;
export type AssignedUser = z.infer<typeof assignedUserWire>;
