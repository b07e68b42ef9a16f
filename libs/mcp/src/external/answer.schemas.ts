import { z } from 'zod';

// What answering takes on /mcp: answer_question_kandev and the question app's own submit alike (both give the resolution, resolutionWire).

/**
 * question_id is optional here on purpose (rule N9: only pending_id is required): a missing one
 * reaches ResolveBundle, which reports it as VALIDATION_ERROR naming the field, like REST does.
 */
const answerEntry = z.strictObject({
  question_id: z.string().optional().describe('A question_id from list_pending_questions_kandev'),
  selected_options: z.array(z.string()).optional().describe('option_id values of that question'),
  custom_text: z.string().optional().describe('Free text, at most 2000 characters'),
});

export const answerInput = z.strictObject({
  pending_id: z.string().describe('The bundle to resolve'),
  answers: z.array(answerEntry).optional().describe('One entry per question of the bundle'),
  rejected: z.boolean().optional().describe('true to decline the whole bundle'),
  reason: z.string().optional().describe('Why, when rejected (at most 2000 characters)'),
  reject_reason: z.string().optional().describe('Alias of reason (the REST body name)'),
});
