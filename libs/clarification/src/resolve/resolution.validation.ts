import { INPUT_LIMITS } from '#common';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { type Answer, type BundleRow, ClarificationStatus, type Question } from '../bundle/clarification.types.js';
import { requestFromRows } from '../bundle/bundle.mapper.js';
import { isPendingRow } from '../bundle/settlement.rules.js';
import type { NormalizedOutcome, ResolutionInput } from '../bundle/resolution.types.js';

/** N8b: reason and custom_text are capped at 2000 runes (code points, not bytes or UTF-16 units). */
export const MAX_TEXT_RUNES = INPUT_LIMITS.answerText;
const ANSWER_KEYS = new Set(['question_id', 'selected_options', 'custom_text']);

function runes(text: string): number {
  return [...text].length;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cappedText(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw ClarificationError.validation(`${field} must be a string`);
  if (runes(value) > MAX_TEXT_RUNES) {
    throw ClarificationError.validation(`${field} must be at most ${MAX_TEXT_RUNES} characters`);
  }
  return value.trim();
}

/** N8 + N3a rule 2: known option ids only, ordered by the question's options, duplicates removed. */
function normalizeSelection(value: unknown, question: Question, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((id) => typeof id !== 'string')) {
    throw ClarificationError.validation(`${field} must be an array of option ids`);
  }
  const unknown = (value as string[]).find((id) => !question.options.some((option) => option.option_id === id));
  if (unknown !== undefined) throw ClarificationError.validation(`${field} contains unknown option id "${unknown}"`);
  return question.options.map((option) => option.option_id).filter((id) => (value as string[]).includes(id));
}

/** N6, N6a, N7, N8, N8b: one entry per question of the bundle, normalized into D2 order (N3a rule 1). */
function normalizeAnswers(value: unknown, rows: readonly BundleRow[]): Answer[] {
  if (!Array.isArray(value)) throw ClarificationError.validation('answers must be an array');
  const questions = requestFromRows(rows).questions;
  const byQuestion = new Map<string, Answer>();
  value.forEach((entry, index) => {
    const field = `answers[${index}]`;
    if (!isRecord(entry)) throw ClarificationError.validation(`${field} must be an object`);
    const extra = Object.keys(entry).find((key) => !ANSWER_KEYS.has(key));
    if (extra !== undefined) throw ClarificationError.validation(`${field}.${extra} is not an allowed field`);
    if (typeof entry.question_id !== 'string' || entry.question_id === '') {
      throw ClarificationError.validation(`${field}.question_id is required`);
    }
    const question = questions.find((candidate) => candidate.id === entry.question_id);
    if (!question) throw ClarificationError.validation(`${field}.question_id "${entry.question_id}" is not a question of this bundle`);
    if (byQuestion.has(question.id)) throw ClarificationError.validation(`${field}.question_id "${question.id}" is repeated`);
    byQuestion.set(question.id, {
      question_id: question.id,
      selected_options: normalizeSelection(entry.selected_options, question, `${field}.selected_options`),
      custom_text: cappedText(entry.custom_text, `${field}.custom_text`),
    });
  });
  if (byQuestion.size !== questions.length) {
    throw ClarificationError.validation(`answers must contain exactly one entry per question (${questions.length})`);
  }
  return questions.map((question) => byQuestion.get(question.id) as Answer);
}

/**
 * Step 3 of ResolveBundle: every N-rule and L16, before the claim (N8c). Lengths are checked on the
 * raw input; trimming comes after (N3a rule 3).
 */
export function validateOutcome(input: ResolutionInput, rows: readonly BundleRow[]): NormalizedOutcome {
  if (rows.some((row) => !row.metadata.question_id)) {
    throw ClarificationError.validation('pending_id names a bundle with a question that has no question_id; it cannot be resolved');
  }
  if (input.rejected !== undefined && input.rejected !== null && typeof input.rejected !== 'boolean') {
    throw ClarificationError.validation('rejected must be a boolean');
  }
  if (input.rejected === true) {
    if (input.answers !== undefined && input.answers !== null && (!Array.isArray(input.answers) || input.answers.length > 0)) {
      throw ClarificationError.validation('answers must be empty when rejected is true');
    }
    return { terminal: ClarificationStatus.Rejected, answers: [], rejectReason: cappedText(input.reject_reason, 'reject_reason') };
  }
  return { terminal: ClarificationStatus.Answered, answers: normalizeAnswers(input.answers ?? [], rows), rejectReason: '' };
}

/**
 * What a claim on these rows records: the outcome's answers to the still-pending questions only. The
 * claim moves the pending rows alone, so on a mixed legacy bundle the already-terminal rows keep their
 * state and response, and the answers given for them (validated like the rest) are not recorded — the
 * winner is told, as every loser later is, exactly what its claim wrote.
 */
export function claimedOutcome(outcome: NormalizedOutcome, rows: readonly BundleRow[]): NormalizedOutcome {
  const pending = new Set(rows.filter(isPendingRow).map((row) => row.metadata.question_id));
  return { ...outcome, answers: outcome.answers.filter((answer) => pending.has(answer.question_id)) };
}
