import type { Question, Resolution } from '../inbox/inbox.types.js';

/** What a resolved bundle said: each question with the labels chosen and the text written, or the decline. */
export function AnswerSummary({ questions, response }: { questions: Question[]; response: Resolution }) {
  if (response.rejected) {
    return <p class="summary">Declined{response.reject_reason ? `: ${response.reject_reason}` : '.'}</p>;
  }
  return (
    <dl class="summary">
      {response.answers.map((answer) => {
        const question = questions.find((candidate) => candidate.questionId === answer.question_id);
        const labels = answer.selected_options.map(
          (optionId) => question?.options.find((option) => option.optionId === optionId)?.label ?? optionId,
        );
        return (
          <div key={answer.question_id} class="summary__item">
            <dt>{question?.title || question?.prompt || answer.question_id}</dt>
            {labels.length > 0 && <dd class="summary__choice">{labels.join(', ')}</dd>}
            {answer.custom_text && <dd class="summary__text">{answer.custom_text}</dd>}
            {labels.length === 0 && !answer.custom_text && <dd>(no answer)</dd>}
          </div>
        );
      })}
    </dl>
  );
}
