import { INPUT_LIMITS } from '#common';
import { ClarificationError } from '../bundle/clarification.errors.js';
import type { Question, QuestionKind, QuestionOption } from '../bundle/clarification.types.js';
import { MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS } from '../wire/bundle-read.wire.js';

const QUESTION_KEYS = new Set(['id', 'title', 'prompt', 'options', 'multi_select', 'kind']);
const QUESTION_KINDS: readonly QuestionKind[] = ['single', 'plan'];
const OPTION_KEYS = new Set(['option_id', 'label', 'description']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalText(value: unknown, field: string, maxLength: number): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw ClarificationError.validation(`${field} must be a string`);
  if (value.length > maxLength) throw ClarificationError.validation(`${field} must be at most ${maxLength} characters`);
  return value;
}

function requiredText(value: unknown, field: string, maxLength: number): string {
  const text = optionalText(value, field, maxLength);
  if (text.trim() === '') throw ClarificationError.validation(`${field} is required`);
  return text;
}

function rejectUnknownKeys(value: Record<string, unknown>, allowed: Set<string>, field: string): void {
  const unknown = Object.keys(value).find((key) => !allowed.has(key));
  if (unknown !== undefined) throw ClarificationError.validation(`${field}.${unknown} is not an allowed field`);
}

function normalizeOption(value: unknown, field: string, questionNumber: number, optionNumber: number): QuestionOption {
  if (!isRecord(value)) throw ClarificationError.validation(`${field} must be an object`);
  rejectUnknownKeys(value, OPTION_KEYS, field);
  const optionId = optionalText(value.option_id, `${field}.option_id`, INPUT_LIMITS.id).trim();
  return {
    option_id: optionId || `q${questionNumber}_opt${optionNumber}`,
    label: requiredText(value.label, `${field}.label`, INPUT_LIMITS.label),
    description: optionalText(value.description, `${field}.description`, INPUT_LIMITS.description),
  };
}

/** `multi_select` and `kind` are optional and kept only when given, so other questions are unchanged. */
function answeringMode(value: Record<string, unknown>, field: string): Pick<Question, 'multi_select' | 'kind'> {
  const mode: Pick<Question, 'multi_select' | 'kind'> = {};
  if (value.multi_select !== undefined && value.multi_select !== null) {
    if (typeof value.multi_select !== 'boolean') throw ClarificationError.validation(`${field}.multi_select must be a boolean`);
    mode.multi_select = value.multi_select;
  }
  if (value.kind !== undefined && value.kind !== null) {
    if (!QUESTION_KINDS.includes(value.kind as QuestionKind)) throw ClarificationError.validation(`${field}.kind must be "single" or "plan"`);
    mode.kind = value.kind as QuestionKind;
  }
  if (mode.kind === 'plan' && mode.multi_select) throw ClarificationError.validation(`${field}.multi_select cannot be true when kind is "plan"`);
  return mode;
}

function normalizeQuestion(value: unknown, index: number): Question {
  const field = `questions[${index}]`;
  if (!isRecord(value)) throw ClarificationError.validation(`${field} must be an object`);
  rejectUnknownKeys(value, QUESTION_KEYS, field);
  const options = value.options;
  if (!Array.isArray(options) || options.length < MIN_OPTIONS || options.length > MAX_OPTIONS) {
    throw ClarificationError.validation(`${field}.options must contain ${MIN_OPTIONS} to ${MAX_OPTIONS} options`);
  }
  const normalizedOptions = options.map((option, j) => normalizeOption(option, `${field}.options[${j}]`, index + 1, j + 1));
  const duplicate = normalizedOptions.find((option, j) => normalizedOptions.findIndex((o) => o.option_id === option.option_id) !== j);
  if (duplicate) throw ClarificationError.validation(`${field}.options has a duplicate option_id "${duplicate.option_id}"`);
  const id = optionalText(value.id, `${field}.id`, INPUT_LIMITS.id).trim();
  return {
    id: id || `q${index + 1}`,
    title: optionalText(value.title, `${field}.title`, INPUT_LIMITS.title),
    prompt: requiredText(value.prompt, `${field}.prompt`, INPUT_LIMITS.prompt),
    options: normalizedOptions,
    ...answeringMode(value, field),
  };
}

/**
 * Creation validation, as the lifecycle rules have it: 1–4 questions, a prompt each, 2–6 options each;
 * missing ids become q1..qN and q{i}_opt{j}; duplicate ids are rejected.
 */
export function normalizeQuestions(value: unknown): Question[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_QUESTIONS) {
    throw ClarificationError.validation(`questions must contain 1 to ${MAX_QUESTIONS} questions`);
  }
  const questions = value.map(normalizeQuestion);
  const duplicate = questions.find((question, i) => questions.findIndex((q) => q.id === question.id) !== i);
  if (duplicate) throw ClarificationError.validation(`questions has a duplicate id "${duplicate.id}"`);
  return questions;
}

/**
 * A bundle's context: optional text of at most INPUT_LIMITS.context characters, '' when absent.
 * For AskService.ask(), so every surface that asks (REST, the in-session MCP tool) gets it.
 */
export function normalizeContext(value: unknown): string {
  return optionalText(value, 'context', INPUT_LIMITS.context);
}

/** Two bundles are identical when their questions have the same prompts and options, in order. */
export function sameQuestions(a: readonly Question[], b: readonly Question[]): boolean {
  const shape = (questions: readonly Question[]) =>
    JSON.stringify(questions.map((q) => [q.prompt, q.options.map((o) => [o.option_id, o.label, o.description])]));
  return shape(a) === shape(b);
}
