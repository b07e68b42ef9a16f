import { INPUT_LIMITS } from '#common';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { normalizeContext, normalizeQuestions, sameQuestions } from './question.validation.js';

/**
 * Creation validation and normalization of an ask's questions: 1–4 questions, a prompt each, 2–6
 * options each, ids defaulted and unique, no unknown keys, text within its limits.
 */

/** The validation error `run` throws, as code and message (fails when it throws none, or another error). */
function refusal(run: () => unknown): { code: ClarificationErrorCode; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ClarificationError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a validation error, got none');
}

const invalid = (message: string) => ({ code: ClarificationErrorCode.Validation, message });

function question(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { prompt: 'Which database?', options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }], ...overrides };
}

describe('normalizeQuestions', () => {
  it('one question: ids default to q1 and q1_opt1.., absent text becomes "", and no answering mode is invented', () => {
    expect(normalizeQuestions([question()])).toEqual([
      {
        id: 'q1',
        title: '',
        prompt: 'Which database?',
        options: [
          { option_id: 'q1_opt1', label: 'PostgreSQL', description: '' },
          { option_id: 'q1_opt2', label: 'SQLite', description: '' },
        ],
      },
    ]);
    expect(Object.keys(normalizeQuestions([question()])[0])).toEqual(['id', 'title', 'prompt', 'options']);
  });

  it('four questions are accepted, each numbered by its position', () => {
    const questions = normalizeQuestions([question(), question(), question(), question()]);
    expect(questions.map((q) => q.id)).toEqual(['q1', 'q2', 'q3', 'q4']);
    expect(questions[3].options.map((o) => o.option_id)).toEqual(['q4_opt1', 'q4_opt2']);
  });

  it.each([
    ['none', []],
    ['five', [question(), question(), question(), question(), question()]],
    ['not an array', question()],
    ['absent', undefined],
  ])('%s is refused', (_case, value) => {
    expect(refusal(() => normalizeQuestions(value))).toEqual(invalid('questions must contain 1 to 4 questions'));
  });

  it('given ids are kept (trimmed); a blank id is defaulted', () => {
    const [first, second] = normalizeQuestions([
      question({ id: ' db ', options: [{ option_id: ' pg ', label: 'PostgreSQL' }, { option_id: '   ', label: 'SQLite' }] }),
      question({ id: '  ' }),
    ]);
    expect(first.id).toBe('db');
    expect(first.options.map((o) => o.option_id)).toEqual(['pg', 'q1_opt2']);
    expect(second.id).toBe('q2');
  });

  it('duplicate question ids are refused, a given id colliding with a defaulted one included', () => {
    expect(refusal(() => normalizeQuestions([question({ id: 'a' }), question({ id: 'a' })]))).toEqual(invalid('questions has a duplicate id "a"'));
    expect(refusal(() => normalizeQuestions([question({ id: 'q2' }), question()]))).toEqual(invalid('questions has a duplicate id "q2"'));
  });

  it('duplicate option ids in one question are refused; the same option id in two questions is not', () => {
    const options = [{ option_id: 'q1_opt2', label: 'A' }, { label: 'B' }];
    expect(refusal(() => normalizeQuestions([question({ options })]))).toEqual(invalid('questions[0].options has a duplicate option_id "q1_opt2"'));
    const shared = [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }];
    expect(normalizeQuestions([question({ options: shared }), question({ options: shared })])).toHaveLength(2);
  });

  it('2 and 6 options are accepted; 1 and 7 (or none) are refused', () => {
    const options = (count: number) => Array.from({ length: count }, (_, i) => ({ label: `option ${i + 1}` }));
    expect(normalizeQuestions([question({ options: options(2) })])[0].options).toHaveLength(2);
    expect(normalizeQuestions([question({ options: options(6) })])[0].options.map((o) => o.option_id)).toEqual(
      ['q1_opt1', 'q1_opt2', 'q1_opt3', 'q1_opt4', 'q1_opt5', 'q1_opt6'],
    );
    for (const value of [options(1), options(7), undefined]) {
      expect(refusal(() => normalizeQuestions([question({ options: value })]))).toEqual(invalid('questions[0].options must contain 2 to 6 options'));
    }
  });

  it('a prompt and every label are required: absent, empty and blank are refused', () => {
    for (const prompt of [undefined, '', '   ']) {
      expect(refusal(() => normalizeQuestions([question({ prompt })]))).toEqual(invalid('questions[0].prompt is required'));
    }
    expect(refusal(() => normalizeQuestions([question(), question({ options: [{ label: 'A' }, { label: ' ' }] })]))).toEqual(
      invalid('questions[1].options[1].label is required'),
    );
  });

  it('text fields must be strings within their limits (the limit itself is accepted)', () => {
    expect(normalizeQuestions([question({ prompt: 'p'.repeat(INPUT_LIMITS.prompt) })])[0].prompt).toHaveLength(INPUT_LIMITS.prompt);
    expect(refusal(() => normalizeQuestions([question({ prompt: 'p'.repeat(INPUT_LIMITS.prompt + 1) })]))).toEqual(
      invalid(`questions[0].prompt must be at most ${INPUT_LIMITS.prompt} characters`),
    );
    expect(refusal(() => normalizeQuestions([question({ id: 'i'.repeat(INPUT_LIMITS.id + 1) })]))).toEqual(
      invalid(`questions[0].id must be at most ${INPUT_LIMITS.id} characters`),
    );
    expect(refusal(() => normalizeQuestions([question({ title: 7 })]))).toEqual(invalid('questions[0].title must be a string'));
    expect(refusal(() => normalizeQuestions([question({ options: [{ label: 'A', description: false }, { label: 'B' }] })]))).toEqual(
      invalid('questions[0].options[0].description must be a string'),
    );
  });

  it('unknown keys are refused, on a question and on an option; non-objects too', () => {
    expect(refusal(() => normalizeQuestions([question({ required: true })]))).toEqual(invalid('questions[0].required is not an allowed field'));
    expect(refusal(() => normalizeQuestions([question({ options: [{ label: 'A', value: 1 }, { label: 'B' }] })]))).toEqual(
      invalid('questions[0].options[0].value is not an allowed field'),
    );
    expect(refusal(() => normalizeQuestions(['Which database?']))).toEqual(invalid('questions[0] must be an object'));
    expect(refusal(() => normalizeQuestions([question({ options: ['A', 'B'] })]))).toEqual(invalid('questions[0].options[0] must be an object'));
  });

  it('multi_select and kind are kept when given (null counts as absent) and checked', () => {
    expect(normalizeQuestions([question({ multi_select: true, kind: 'single' })])[0]).toMatchObject({ multi_select: true, kind: 'single' });
    expect(normalizeQuestions([question({ multi_select: false, kind: 'plan' })])[0]).toMatchObject({ multi_select: false, kind: 'plan' });
    const unset = normalizeQuestions([question({ multi_select: null, kind: null })])[0];
    expect(unset).not.toHaveProperty('multi_select');
    expect(unset).not.toHaveProperty('kind');
    expect(refusal(() => normalizeQuestions([question({ multi_select: 'yes' })]))).toEqual(invalid('questions[0].multi_select must be a boolean'));
    expect(refusal(() => normalizeQuestions([question({ kind: 'multi' })]))).toEqual(invalid('questions[0].kind must be "single" or "plan"'));
    expect(refusal(() => normalizeQuestions([question({ kind: 'plan', multi_select: true })]))).toEqual(
      invalid('questions[0].multi_select cannot be true when kind is "plan"'),
    );
  });
});

describe('normalizeContext', () => {
  it('absent is "", a string up to the limit is kept as given, longer or not a string is refused', () => {
    expect(normalizeContext(undefined)).toBe('');
    expect(normalizeContext(null)).toBe('');
    expect(normalizeContext('  the repo  ')).toBe('  the repo  ');
    expect(normalizeContext('c'.repeat(INPUT_LIMITS.context))).toHaveLength(INPUT_LIMITS.context);
    expect(refusal(() => normalizeContext('c'.repeat(INPUT_LIMITS.context + 1)))).toEqual(invalid(`context must be at most ${INPUT_LIMITS.context} characters`));
    expect(refusal(() => normalizeContext({}))).toEqual(invalid('context must be a string'));
  });
});

describe('sameQuestions', () => {
  const base = normalizeQuestions([question(), question({ prompt: 'Which cache?' })]);

  it('the same prompts and options in the same order are the same bundle, whatever the titles', () => {
    expect(sameQuestions(base, normalizeQuestions([question({ title: 'Storage' }), question({ prompt: 'Which cache?' })]))).toBe(true);
  });

  it('a different prompt, option label, option id, question order or count is a different bundle', () => {
    expect(sameQuestions(base, normalizeQuestions([question(), question({ prompt: 'Which queue?' })]))).toBe(false);
    expect(sameQuestions(base, normalizeQuestions([question({ options: [{ label: 'PostgreSQL' }, { label: 'MySQL' }] }), question({ prompt: 'Which cache?' })]))).toBe(false);
    expect(
      sameQuestions(base, normalizeQuestions([question({ options: [{ option_id: 'pg', label: 'PostgreSQL' }, { label: 'SQLite' }] }), question({ prompt: 'Which cache?' })])),
    ).toBe(false);
    expect(sameQuestions(base, [base[1], base[0]])).toBe(false);
    expect(sameQuestions(base, base.slice(0, 1))).toBe(false);
  });
});
