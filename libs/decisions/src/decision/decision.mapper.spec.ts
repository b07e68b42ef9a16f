import { INPUT_LIMITS } from '#common';
import type { Selection } from '../command/command.request.js';
import { answerFor, type Decision, decisionOf, decisionRef, MAX_DECISION_OPTIONS } from './decision.mapper.js';
import { CommandStatus, DecisionError } from '../decisions.errors.js';

type Row = Parameters<typeof decisionOf>[0][number];

const option = (id: string, label = `Option ${id}`) => ({ option_id: id, label });

/** One stored row of a bundle with `question` as its metadata (deliberately loose: malformed shapes are cases too). */
function row(question: Record<string, unknown>, overrides: { pending_id?: string; question_id?: string; turn_id?: string | null } = {}): Row {
  return {
    id: 'msg-1',
    task_session_id: 'session-1',
    task_id: 'task-1',
    session_task_id: 'task-1',
    turn_id: overrides.turn_id === undefined ? 'turn-1' : overrides.turn_id,
    content: '',
    created_at: new Date('2024-01-01T00:00:00Z'),
    metadata: { pending_id: overrides.pending_id ?? 'pending-1', question_id: overrides.question_id ?? 'q1', question: question as never },
  };
}

const single = (extra: Record<string, unknown> = {}) => ({
  id: 'q1',
  title: '',
  prompt: 'Which database?',
  options: [option('pg', 'PostgreSQL'), option('sqlite', 'SQLite')],
  ...extra,
});

function supported(rows: Row[]): Decision {
  const shape = decisionOf(rows);
  if (!shape.supported) throw new Error(`unsupported: ${shape.reason}`);
  return shape.decision;
}

function unsupportedReason(rows: Row[]): string {
  const shape = decisionOf(rows);
  if (shape.supported) throw new Error('the decision was supported');
  return shape.reason;
}

describe('decisionOf', () => {
  it('presents a single-choice question with 1-based option references', () => {
    const decision = supported([row(single())]);
    expect(decision.view).toEqual({
      decision_ref: decisionRef([row(single())]),
      kind: 'single',
      prompt: 'Which database?',
      options: [
        { ref: '1', label: 'PostgreSQL' },
        { ref: '2', label: 'SQLite' },
      ],
      multi_select: false,
      question_count: 1,
    });
    expect(decision.questionId).toBe('q1');
    expect(decision.optionIds).toEqual(['pg', 'sqlite']);
  });

  it('prefixes the title to the prompt, both trimmed', () => {
    expect(supported([row(single({ title: '  Storage ', prompt: ' Which database? ' }))]).view.prompt).toBe('Storage: Which database?');
  });

  it.each([
    [{ kind: 'single', multi_select: true }, 'multi', true],
    [{ kind: 'plan' }, 'plan', false],
    [{}, 'single', false],
  ])('reads %j as a %s decision', (extra, kind, multi) => {
    expect(supported([row(single(extra))]).view).toMatchObject({ kind, multi_select: multi });
  });

  it.each(['custom', 'Other', 'writein', 'write_in', 'write-in'])('leaves out a trailing write-in row (%s) of a single question', (id) => {
    const decision = supported([row(single({ options: [option('a'), option('b'), option(id, 'Something else')] }))]);
    expect(decision.optionIds).toEqual(['a', 'b']);
  });

  it('keeps a write-in row that is not last, and the last one of a multi question', () => {
    expect(supported([row(single({ options: [option('other'), option('b')] }))]).optionIds).toEqual(['other', 'b']);
    expect(supported([row(single({ multi_select: true, options: [option('a'), option('other')] }))]).optionIds).toEqual(['a', 'other']);
  });

  it(`accepts ${MAX_DECISION_OPTIONS} options (one digit each) and refuses ${MAX_DECISION_OPTIONS + 1} rather than truncate`, () => {
    const options = (n: number) => Array.from({ length: n }, (_, index) => option(`o${index + 1}`));
    expect(supported([row(single({ options: options(9) }))]).view.options.at(-1)).toEqual({ ref: '9', label: 'Option o9' });
    expect(unsupportedReason([row(single({ options: options(10) }))])).toBe('it has 10 options; at most 9 can be referenced');
    // Nine options and a write-in: the write-in is not referenced, so it still fits.
    expect(supported([row(single({ options: [...options(9), option('custom')] }))]).optionIds).toHaveLength(9);
  });

  it.each([
    ['two questions', [row(single()), row(single({ id: 'q2' }), { question_id: 'q2' })], 'it has 2 questions; only a single-question decision can be answered'],
    ['no rows', [], 'it has 0 questions; only a single-question decision can be answered'],
    ['options that are not a list', [row(single({ options: 'a,b' }))], 'its question is malformed'],
    ['no options', [row(single({ options: [] }))], 'its question is malformed'],
    ['only a write-in', [row(single({ options: [option('custom')] }))], 'its question is malformed'],
    ['a blank label', [row(single({ options: [option('a', '  ')] }))], 'its question is malformed'],
    ['an option without id', [row(single({ options: [{ label: 'A' }] }))], 'its question is malformed'],
    ['a blank prompt', [row(single({ prompt: ' ' }))], 'its question is malformed'],
    ['a multi-select plan', [row(single({ kind: 'plan', multi_select: true }))], 'its kind is not single, plan or multi'],
    ['an unknown kind', [row(single({ kind: 'ranking' }))], 'its kind is not single, plan or multi'],
    ['multi_select "yes"', [row(single({ multi_select: 'yes' }))], 'its kind is not single, plan or multi'],
  ])('presents no decision for %s', (_, rows, reason) => {
    expect(unsupportedReason(rows)).toBe(reason);
  });
});

describe('decisionRef', () => {
  const ref = decisionRef([row(single())]);

  it('is "decision-" and 24 hex digits, the same for the same bundle', () => {
    expect(ref).toMatch(/^decision-[0-9a-f]{24}$/);
    expect(decisionRef([row(single())])).toBe(ref);
  });

  it('does not depend on the order of keys in the stored question', () => {
    const { options, prompt, ...rest } = single();
    expect(decisionRef([row({ options, ...rest, prompt })])).toBe(ref);
  });

  it.each([
    ['another pending_id', [row(single(), { pending_id: 'pending-2' })]],
    ['another turn', [row(single(), { turn_id: 'turn-2' })]],
    ['no turn', [row(single(), { turn_id: null })]],
    ['another question id', [row(single(), { question_id: 'q9' })]],
    ['an edited label', [row(single({ options: [option('pg', 'Postgres'), option('sqlite', 'SQLite')] }))]],
    ['reordered options', [row(single({ options: [option('sqlite', 'SQLite'), option('pg', 'PostgreSQL')] }))]],
  ])('changes with %s', (_, rows) => {
    expect(decisionRef(rows)).not.toBe(ref);
  });
});

describe('answerFor', () => {
  const singleDecision = supported([row(single({ options: [option('pg'), option('sqlite'), option('custom')] }))]);
  const multiDecision = supported([row(single({ multi_select: true, options: [option('a'), option('b'), option('c')] }))]);
  const planDecision = supported([row(single({ kind: 'plan', options: [option('approve'), option('revise')] }))]);

  function selectionRefusal(decision: Decision, selection: Selection): DecisionError {
    try {
      answerFor(decision, selection);
    } catch (error) {
      if (error instanceof DecisionError) return error;
      throw error;
    }
    throw new Error('the selection was accepted');
  }

  it('maps references onto option ids, in the order given', () => {
    expect(answerFor(singleDecision, { optionRefs: ['2'] })).toEqual({ answers: [{ question_id: 'q1', selected_options: ['sqlite'], custom_text: '' }] });
    expect(answerFor(multiDecision, { optionRefs: ['3', '1'] })).toEqual({ answers: [{ question_id: 'q1', selected_options: ['c', 'a'], custom_text: '' }] });
    expect(answerFor(planDecision, { optionRefs: ['1'] })).toEqual({ answers: [{ question_id: 'q1', selected_options: ['approve'], custom_text: '' }] });
  });

  it('answers a single decision with write-in text', () => {
    expect(answerFor(singleDecision, { text: 'MySQL, tabs\tand\nlines' })).toEqual({
      answers: [{ question_id: 'q1', selected_options: [], custom_text: 'MySQL, tabs\tand\nlines' }],
    });
  });

  it(`accepts write-in text of ${INPUT_LIMITS.answerText} characters counted as code points, not UTF-16 units`, () => {
    const text = '😀'.repeat(INPUT_LIMITS.answerText);
    expect(text).toHaveLength(INPUT_LIMITS.answerText * 2);
    expect(answerFor(singleDecision, { text })).toEqual({ answers: [{ question_id: 'q1', selected_options: [], custom_text: text }] });
    expect(selectionRefusal(singleDecision, { text: 'x'.repeat(INPUT_LIMITS.answerText + 1) }).message).toBe(
      `params.selection.text must be at most ${INPUT_LIMITS.answerText} characters`,
    );
  });

  it.each([
    ['a reference past the options (the write-in is not one)', singleDecision, { optionRefs: ['3'] }, 'params.selection.option_refs names "3", which is not an option of this decision (1..2)'],
    ['reference 0', singleDecision, { optionRefs: ['0'] }, 'params.selection.option_refs names "0", which is not an option of this decision (1..2)'],
    ['a padded reference', singleDecision, { optionRefs: ['01'] }, 'params.selection.option_refs names "01", which is not an option of this decision (1..2)'],
    ['two references on a single decision', singleDecision, { optionRefs: ['1', '2'] }, 'params.selection.option_refs must name exactly one option of a single decision'],
    ['two references on a plan', planDecision, { optionRefs: ['1', '2'] }, 'params.selection.option_refs must name exactly one option of a plan decision'],
    ['a repeated reference', multiDecision, { optionRefs: ['2', '2'] }, 'params.selection.option_refs repeats "2"'],
    ['text on a multi decision', multiDecision, { text: 'b' }, 'params.selection.text is accepted only by a single decision; this one is multi'],
    ['text on a plan', planDecision, { text: 'yes' }, 'params.selection.text is accepted only by a single decision; this one is plan'],
    ['an escape sequence', singleDecision, { text: 'red\u001b[31m' }, 'params.selection.text must not contain control characters'],
    ['a C1 control', singleDecision, { text: 'a\u0085b' }, 'params.selection.text must not contain control characters'],
    ['DEL', singleDecision, { text: 'a\u007f' }, 'params.selection.text must not contain control characters'],
  ])('refuses %s', (_, decision, selection, message) => {
    const error = selectionRefusal(decision, selection);
    expect(error.code).toBe(CommandStatus.InvalidSelection);
    expect(error.message).toBe(message);
  });
});
