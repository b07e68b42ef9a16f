import { type BundleRow, MAX_TEXT_RUNES, type ResolutionInput } from '#clarification';
import { canonicalJson, sha256Hex } from '../command/canonical-json.js';
import type { Selection } from '../command/command.request.js';
import { DecisionError } from '../decisions.errors.js';

/** Options are addressed by one digit, so a decision has at most nine; a larger one is never truncated. */
export const MAX_DECISION_OPTIONS = 9;
/** A single-choice question may end with one write-in row; it is answered with text, never by reference. */
const WRITE_IN_OPTION_IDS = new Set(['custom', 'other', 'writein', 'write_in', 'write-in']);

export type DecisionKind = 'single' | 'plan' | 'multi';

/** `meta.decision` of a pending interaction. */
export interface DecisionView {
  decision_ref: string;
  kind: DecisionKind;
  prompt: string;
  options: Array<{ ref: string; label: string }>;
  multi_select: boolean;
  question_count: number;
}

export interface Decision {
  view: DecisionView;
  questionId: string;
  /** The option_id each reference stands for: ref "n" is optionIds[n - 1]. */
  optionIds: string[];
}

export type DecisionShape = { supported: true; decision: Decision } | { supported: false; reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unsupported(reason: string): DecisionShape {
  return { supported: false, reason };
}

/**
 * `"decision-"` + 24 hex of SHA-256 over the canonical revision of the bundle — its pending_id, its
 * turn and its questions as stored — so it changes whenever any of them does.
 */
export function decisionRef(rows: readonly BundleRow[]): string {
  const revision = {
    pending_id: rows[0]?.metadata.pending_id ?? '',
    turn_id: rows[0]?.turn_id ?? null,
    questions: rows.map((row) => ({ question_id: row.metadata.question_id ?? null, question: row.metadata.question ?? null })),
  };
  return `decision-${sha256Hex(canonicalJson(revision)).slice(0, 24)}`;
}

function kindOf(question: Record<string, unknown>): DecisionKind | undefined {
  const kind = question.kind ?? 'single';
  const multiSelect = question.multi_select ?? false;
  if (typeof multiSelect !== 'boolean') return undefined;
  if (kind === 'plan') return multiSelect ? undefined : 'plan';
  if (kind === 'single') return multiSelect ? 'multi' : 'single';
  return undefined;
}

function isWriteInRow(option: unknown): boolean {
  return isRecord(option) && typeof option.option_id === 'string' && WRITE_IN_OPTION_IDS.has(option.option_id.toLowerCase());
}

/** The decision a bundle (its rows in question order) presents to a connector, or why it presents none. */
export function decisionOf(rows: readonly BundleRow[]): DecisionShape {
  if (rows.length !== 1) return unsupported(`it has ${rows.length} questions; only a single-question decision can be answered`);
  const row = rows[0];
  const question: unknown = row.metadata.question;
  const questionId = row.metadata.question_id;
  if (!isRecord(question) || !questionId || !Array.isArray(question.options)) return unsupported('its question is malformed');
  const kind = kindOf(question);
  if (!kind) return unsupported('its kind is not single, plan or multi');
  const options: unknown[] = question.options;
  const selectable = kind === 'single' && options.length > 0 && isWriteInRow(options[options.length - 1]) ? options.slice(0, -1) : options;
  const valid = selectable.every(
    (option) => isRecord(option) && typeof option.option_id === 'string' && typeof option.label === 'string' && option.label.trim() !== '',
  );
  const prompt = typeof question.prompt === 'string' ? question.prompt.trim() : '';
  if (!valid || selectable.length === 0 || prompt === '') return unsupported('its question is malformed');
  if (selectable.length > MAX_DECISION_OPTIONS) {
    return unsupported(`it has ${selectable.length} options; at most ${MAX_DECISION_OPTIONS} can be referenced`);
  }
  const title = typeof question.title === 'string' ? question.title.trim() : '';
  const rowsOfOptions = selectable as Array<{ option_id: string; label: string }>;
  return {
    supported: true,
    decision: {
      view: {
        decision_ref: decisionRef(rows),
        kind,
        prompt: title ? `${title}: ${prompt}` : prompt,
        options: rowsOfOptions.map((option, index) => ({ ref: String(index + 1), label: option.label })),
        multi_select: kind === 'multi',
        question_count: rows.length,
      },
      questionId,
      optionIds: rowsOfOptions.map((option) => option.option_id),
    },
  };
}

/** C0 controls other than tab, line feed and carriage return, DEL and C1 controls (escape sequences included). */
function hasControlCharacter(text: string): boolean {
  return [...text].some((char) => {
    const code = char.codePointAt(0) as number;
    return (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || (code >= 0x7f && code <= 0x9f);
  });
}

/**
 * The ResolveBundle input a selection stands for, or invalid_selection: every reference must be an
 * option of the decision, without repeats; single and plan take exactly one; text only on single.
 */
export function answerFor(decision: Decision, selection: Selection): ResolutionInput {
  const { kind, options } = decision.view;
  if ('text' in selection) {
    const field = 'params.selection.text';
    if (kind !== 'single') throw DecisionError.invalidSelection(`${field} is accepted only by a single decision; this one is ${kind}`, field);
    if ([...selection.text].length > MAX_TEXT_RUNES) {
      throw DecisionError.invalidSelection(`${field} must be at most ${MAX_TEXT_RUNES} characters`, field);
    }
    if (hasControlCharacter(selection.text)) throw DecisionError.invalidSelection(`${field} must not contain control characters`, field);
    return { answers: [{ question_id: decision.questionId, selected_options: [], custom_text: selection.text }] };
  }
  const field = 'params.selection.option_refs';
  const refs = selection.optionRefs;
  const unknown = refs.find((ref) => !options.some((option) => option.ref === ref));
  if (unknown !== undefined) {
    throw DecisionError.invalidSelection(`${field} names "${unknown}", which is not an option of this decision (1..${options.length})`, field);
  }
  const repeated = refs.find((ref, index) => refs.indexOf(ref) !== index);
  if (repeated !== undefined) throw DecisionError.invalidSelection(`${field} repeats "${repeated}"`, field);
  if (kind !== 'multi' && refs.length !== 1) {
    throw DecisionError.invalidSelection(`${field} must name exactly one option of a ${kind} decision`, field);
  }
  return {
    answers: [
      { question_id: decision.questionId, selected_options: refs.map((ref) => decision.optionIds[Number(ref) - 1]), custom_text: '' },
    ],
  };
}
