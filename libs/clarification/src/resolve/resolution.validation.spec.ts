import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { type BundleRow, type BundleRowMetadata, ClarificationStatus, type Question } from '../bundle/clarification.types.js';
import { claimedOutcome, MAX_TEXT_RUNES, validateOutcome } from './resolution.validation.js';

/**
 * Resolution validation against a bundle's rows (N6–N8b, L16) and its normalization (N3a), before
 * any claim: pure, so every rule is checked here on its own (N8d).
 */

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

const DB: Question = {
  id: 'db',
  title: '',
  prompt: 'Which database?',
  options: [
    { option_id: 'pg', label: 'PostgreSQL', description: '' },
    { option_id: 'sqlite', label: 'SQLite', description: '' },
    { option_id: 'mysql', label: 'MySQL', description: '' },
  ],
};
const CACHE: Question = {
  id: 'cache',
  title: '',
  prompt: 'Which cache?',
  options: [
    { option_id: 'redis', label: 'Redis', description: '' },
    { option_id: 'none', label: 'None', description: '' },
  ],
};

/** A bundle's rows in D2 order, one per question, all pending unless `metadata` says otherwise. */
function rowsOf(questions: Question[], metadata: Array<Partial<BundleRowMetadata>> = []): BundleRow[] {
  return questions.map((question, index) => ({
    id: `m${index}`,
    task_session_id: 'session',
    task_id: 'task',
    session_task_id: 'task',
    turn_id: 'turn',
    content: question.prompt,
    metadata: { pending_id: 'bundle', question_id: question.id, question, question_index: index, status: 'pending', ...metadata[index] },
    created_at: new Date('2026-01-01T00:00:00.000Z'),
  }));
}

const TWO = rowsOf([DB, CACHE]);
const ONE = rowsOf([DB]);
const entry = (question_id: string, selected_options: string[] = [], custom_text = '') => ({ question_id, selected_options, custom_text });

describe('validateOutcome: answers', () => {
  it('N3a: entries come back in the bundle\'s question order, selections in option order without duplicates, text trimmed', () => {
    const outcome = validateOutcome({ answers: [entry('cache', ['none']), entry('db', ['mysql', 'pg', 'mysql'], '  both  ')] }, TWO);
    expect(outcome).toEqual({
      terminal: ClarificationStatus.Answered,
      answers: [entry('db', ['pg', 'mysql'], 'both'), entry('cache', ['none'])],
      rejectReason: '',
    });
  });

  it('N7: an entry with neither options nor text is accepted, missing fields as [] and ""', () => {
    expect(validateOutcome({ answers: [{ question_id: 'db' }] }, ONE).answers).toEqual([entry('db')]);
    expect(validateOutcome({ answers: [{ question_id: 'db', selected_options: null, custom_text: null }] }, ONE).answers).toEqual([entry('db')]);
  });

  it('N6: exactly one entry per question — a missing, repeated, unknown or empty question_id is refused', () => {
    expect(refusal(() => validateOutcome({ answers: [entry('db')] }, TWO))).toEqual(invalid('answers must contain exactly one entry per question (2)'));
    expect(refusal(() => validateOutcome({ answers: [entry('db'), entry('db')] }, TWO))).toEqual(invalid('answers[1].question_id "db" is repeated'));
    expect(refusal(() => validateOutcome({ answers: [entry('db'), entry('queue')] }, TWO))).toEqual(
      invalid('answers[1].question_id "queue" is not a question of this bundle'),
    );
    expect(refusal(() => validateOutcome({ answers: [entry('')] }, ONE))).toEqual(invalid('answers[0].question_id is required'));
    expect(refusal(() => validateOutcome({ answers: [{ selected_options: ['pg'] }] }, ONE))).toEqual(invalid('answers[0].question_id is required'));
  });

  it('an entry must be an object with only its three keys; answers must be an array', () => {
    expect(refusal(() => validateOutcome({ answers: [{ ...entry('db'), score: 1 }] }, ONE))).toEqual(invalid('answers[0].score is not an allowed field'));
    expect(refusal(() => validateOutcome({ answers: ['db'] }, ONE))).toEqual(invalid('answers[0] must be an object'));
    expect(refusal(() => validateOutcome({ answers: { db: 'pg' } }, ONE))).toEqual(invalid('answers must be an array'));
  });

  it('N8: only the question\'s own option ids — another question\'s option is refused; several of its own are accepted', () => {
    expect(refusal(() => validateOutcome({ answers: [entry('db', ['redis']), entry('cache')] }, TWO))).toEqual(
      invalid('answers[0].selected_options contains unknown option id "redis"'),
    );
    expect(validateOutcome({ answers: [entry('db', ['sqlite', 'pg', 'mysql'])] }, ONE).answers[0].selected_options).toEqual(['pg', 'sqlite', 'mysql']);
    expect(refusal(() => validateOutcome({ answers: [{ question_id: 'db', selected_options: 'pg' }] }, ONE))).toEqual(
      invalid('answers[0].selected_options must be an array of option ids'),
    );
    expect(refusal(() => validateOutcome({ answers: [{ question_id: 'db', selected_options: [1] }] }, ONE))).toEqual(
      invalid('answers[0].selected_options must be an array of option ids'),
    );
  });

  it('N8b: custom_text holds up to 2000 code points — astral characters count once; the raw text is measured before trimming', () => {
    const astral = '😀'.repeat(MAX_TEXT_RUNES);
    expect(astral.length).toBe(2 * MAX_TEXT_RUNES);
    expect(validateOutcome({ answers: [entry('db', [], astral)] }, ONE).answers[0].custom_text).toBe(astral);
    const tooLong = invalid(`answers[0].custom_text must be at most ${MAX_TEXT_RUNES} characters`);
    expect(refusal(() => validateOutcome({ answers: [entry('db', [], `${astral}😀`)] }, ONE))).toEqual(tooLong);
    expect(refusal(() => validateOutcome({ answers: [entry('db', [], `${'a'.repeat(MAX_TEXT_RUNES)} `)] }, ONE))).toEqual(tooLong);
    expect(refusal(() => validateOutcome({ answers: [{ question_id: 'db', custom_text: 42 }] }, ONE))).toEqual(invalid('answers[0].custom_text must be a string'));
  });

  it('N8a: not rejecting needs answers, even on a one-question bundle (absent, null or [])', () => {
    const noAnswers = invalid('answers must contain exactly one entry per question (1)');
    expect(refusal(() => validateOutcome({}, ONE))).toEqual(noAnswers);
    expect(refusal(() => validateOutcome({ answers: null, rejected: false }, ONE))).toEqual(noAnswers);
    expect(refusal(() => validateOutcome({ answers: [] }, ONE))).toEqual(noAnswers);
  });
});

describe('validateOutcome: rejection', () => {
  it('a rejection carries no answers and its reason, trimmed', () => {
    expect(validateOutcome({ rejected: true, reject_reason: '  not now ' }, TWO)).toEqual({ terminal: ClarificationStatus.Rejected, answers: [], rejectReason: 'not now' });
    expect(validateOutcome({ rejected: true, answers: [] }, TWO)).toEqual({ terminal: ClarificationStatus.Rejected, answers: [], rejectReason: '' });
  });

  it('N8a: a rejection with answers is refused; rejected must be a boolean', () => {
    expect(refusal(() => validateOutcome({ rejected: true, answers: [entry('db'), entry('cache')] }, TWO))).toEqual(invalid('answers must be empty when rejected is true'));
    expect(refusal(() => validateOutcome({ rejected: true, answers: 'none' }, TWO))).toEqual(invalid('answers must be empty when rejected is true'));
    expect(refusal(() => validateOutcome({ rejected: 'true' }, TWO))).toEqual(invalid('rejected must be a boolean'));
  });

  it('N8b: the reason is capped at 2000 code points as well', () => {
    expect(validateOutcome({ rejected: true, reject_reason: 'r'.repeat(MAX_TEXT_RUNES) }, ONE).rejectReason).toHaveLength(MAX_TEXT_RUNES);
    expect(refusal(() => validateOutcome({ rejected: true, reject_reason: 'r'.repeat(MAX_TEXT_RUNES + 1) }, ONE))).toEqual(
      invalid(`reject_reason must be at most ${MAX_TEXT_RUNES} characters`),
    );
  });
});

describe('L16: a bundle with a row lacking question_id', () => {
  const broken = rowsOf([DB, CACHE], [{}, { question_id: '' }]);

  it('refuses an answer and a rejection alike', () => {
    const message = invalid('pending_id names a bundle with a question that has no question_id; it cannot be resolved');
    expect(refusal(() => validateOutcome({ answers: [entry('db'), entry('cache')] }, broken))).toEqual(message);
    expect(refusal(() => validateOutcome({ rejected: true }, broken))).toEqual(message);
  });
});

describe('claimedOutcome', () => {
  it('on a mixed legacy bundle records only the answers to the still-pending questions', () => {
    const mixed = rowsOf([DB, CACHE], [{ status: ClarificationStatus.Answered, response: entry('db', ['sqlite']) }, {}]);
    const outcome = validateOutcome({ answers: [entry('db', ['pg']), entry('cache', ['redis'])] }, mixed);
    expect(outcome.answers).toHaveLength(2);
    expect(claimedOutcome(outcome, mixed)).toEqual({ ...outcome, answers: [entry('cache', ['redis'])] });
  });

  it('keeps every answer when every row is pending (a row without status counts as pending)', () => {
    const rows = rowsOf([DB, CACHE], [{}, { status: undefined }]);
    const outcome = validateOutcome({ answers: [entry('db'), entry('cache')] }, rows);
    expect(claimedOutcome(outcome, rows)).toEqual(outcome);
  });
});
