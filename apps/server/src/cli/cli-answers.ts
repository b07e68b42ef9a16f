import { CliUsageError } from './cli-arguments.js';

interface CliAnswer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

function split(pair: string, flag: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new CliUsageError(`${flag} must look like QUESTION_ID=…  (got "${pair}")`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

/**
 * The respond body's answers from `--answer q=opt1,opt2` and `--text q=words` flags, one answer per
 * question in the order first named; whether they fit the bundle is ResolveBundle's to say.
 */
export function answersFrom(selections: readonly string[], texts: readonly string[]): CliAnswer[] {
  const answers = new Map<string, CliAnswer>();
  const answerOf = (questionId: string) => {
    let answer = answers.get(questionId);
    if (!answer) {
      answer = { question_id: questionId, selected_options: [], custom_text: '' };
      answers.set(questionId, answer);
    }
    return answer;
  };
  for (const pair of selections) {
    const [questionId, options] = split(pair, '--answer');
    answerOf(questionId).selected_options.push(...options.split(',').map((option) => option.trim()).filter((option) => option !== ''));
  }
  for (const pair of texts) {
    const [questionId, text] = split(pair, '--text');
    answerOf(questionId).custom_text = text;
  }
  if (answers.size === 0) throw new CliUsageError('give --answer QUESTION_ID=OPTION_ID (or --text QUESTION_ID=TEXT) for each question, or --reject');
  return [...answers.values()];
}
