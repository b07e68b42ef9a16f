import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ClarificationResponse } from '#clarification';

/**
 * ask_user_question_kandev's result, in the reference's own response envelope, unchanged, so agents
 * written for the reference read it as they always did (docs/api/mcp.md): exactly as kdlbs/kandev
 * builds it in apps/backend/internal/mcp/server/handlers.go, `extractQuestionAnswers` and `simplifyAnswer`:
 * an object keyed by question id; an entry carries the first selected option and/or the custom
 * text, or `answered: false`; a rejection adds `rejected: true` (and `reject_reason` when not
 * empty) and marks entries without an answer `{answered: false, rejected: true}`.
 * One addition the reference cannot produce, so no agent written for it meets it: a question asked
 * with `multi_select: true` whose answer picked more than one option also carries them
 * all as `selected_options`.
 */
export type AskEntry = { selected_option?: string; selected_options?: string[]; custom_text?: string } | { answered: false; rejected?: true };
export type AskResult = Record<string, AskEntry | boolean | string>;

function entryFor(
  answer: { selected_options: readonly string[]; custom_text: string } | undefined,
  rejected: boolean,
  multiSelect: boolean,
): AskEntry {
  const entry: { selected_option?: string; selected_options?: string[]; custom_text?: string } = {};
  const first = answer?.selected_options[0];
  if (first) entry.selected_option = first;
  if (multiSelect && answer && answer.selected_options.length > 1) entry.selected_options = [...answer.selected_options];
  if (answer?.custom_text) entry.custom_text = answer.custom_text;
  if (entry.selected_option !== undefined || entry.custom_text !== undefined) return entry;
  return rejected ? { answered: false, rejected: true } : { answered: false };
}

/** `questions`: the asked questions in order, as the bundle stores them (defaults q1..qN applied). */
export function askResult(response: ClarificationResponse, questions: ReadonlyArray<{ id: string; multi_select?: boolean }>): AskResult {
  const result: AskResult = {};
  if (response.rejected) {
    result.rejected = true;
    if (response.reject_reason !== '') result.reject_reason = response.reject_reason;
  }
  const answers = new Map(response.answers.map((answer) => [answer.question_id, answer]));
  for (const question of questions) {
    result[question.id] = entryFor(answers.get(question.id), response.rejected, question.multi_select === true);
  }
  return result;
}

/** Go's encoding/json writes map keys sorted by their UTF-8 bytes. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      .map(([key, entry]) => [key, sortedKeys(entry)]),
  );
}

/** Go's encoder also escapes these (HTML-safe JSON); they only ever occur inside strings. */
const GO_ESCAPED = /[<>&\u2028\u2029]/g;

/** The reference's text: `json.MarshalIndent(out, "", "  ")`. */
export function goIndentedJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value), null, 2).replace(GO_ESCAPED, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The same object as text and as structuredContent (`mcp.NewToolResultStructured(out, text)`); the
 * resolution's signed receipt rides in the result's `_meta.receipt`, so the reference's envelope stays as it is.
 */
export function askToolResult(result: AskResult, receipt?: string): CallToolResult {
  const meta = receipt === undefined ? {} : { _meta: { receipt } };
  return { content: [{ type: 'text', text: goIndentedJson(result) }], structuredContent: result, ...meta };
}

const askEntrySchema = z.object({
  selected_option: z.string().optional().describe('The first option_id the user selected'),
  selected_options: z.array(z.string()).optional().describe('Every option_id the user selected, when more than one (multi_select questions)'),
  custom_text: z.string().optional().describe('What the user typed'),
  answered: z.literal(false).optional().describe('Present (false) when the question got neither'),
  rejected: z.literal(true).optional().describe('Present (true) on an unanswered question of a rejected bundle'),
});

/** A question id may be any string, even "rejected": each top-level key is an entry or an envelope field. */
export const askResultSchema = z
  .object({
    rejected: z.union([z.literal(true), askEntrySchema]).optional().describe('true when the user declined the whole bundle'),
    reject_reason: z.union([z.string(), askEntrySchema]).optional().describe('Why, when given'),
  })
  .catchall(askEntrySchema)
  .describe('Keyed by question id');
