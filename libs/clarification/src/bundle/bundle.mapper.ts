import type { Action } from '#receipts';
import { type Answer, type BundleRow, type ClarificationRequest, type ClarificationResponse, ClarificationStatus, type Question } from './clarification.types.js';
import { Settlement, settlementOf, winnerStatus, winningRows } from './settlement.rules.js';

/** The bundle's task per spec M5: the message's task_id, else its session's; '' when neither. */
export function bundleTaskId(rows: readonly BundleRow[]): string {
  const first = rows[0];
  if (!first) return '';
  return first.task_id || first.session_task_id || '';
}

function questionOf(row: BundleRow): Question {
  const question = row.metadata.question;
  const options = Array.isArray(question?.options) ? question.options : [];
  return {
    id: row.metadata.question_id ?? question?.id ?? '',
    title: typeof question?.title === 'string' ? question.title : '',
    prompt: typeof question?.prompt === 'string' ? question.prompt : '',
    options: options.map((option) => ({
      option_id: typeof option?.option_id === 'string' ? option.option_id : '',
      label: typeof option?.label === 'string' ? option.label : '',
      description: typeof option?.description === 'string' ? option.description : '',
    })),
    // Kept only when the asker set it, as the ask stored it (so other questions read unchanged).
    ...(typeof question?.multi_select === 'boolean' ? { multi_select: question.multi_select } : {}),
  };
}

/** The bundle's action and digest, as its rows store them (null for a bundle asked without one). */
export function actionOfRows(rows: readonly BundleRow[]): { action: Action | null; action_digest: string | null } {
  const stored = rows.find((row) => row.metadata.action !== undefined)?.metadata;
  return stored?.action && typeof stored.action_digest === 'string' ? { action: stored.action, action_digest: stored.action_digest } : { action: null, action_digest: null };
}

/** Who asked the bundle, as its rows record it; a bundle asked before that was recorded names nobody (`{kind: "unknown", id: null}`). */
export function askedByOfRows(rows: readonly BundleRow[]): { kind: string; id: string | null } {
  const recorded = rows[0]?.metadata.asked_by;
  return recorded && typeof recorded.kind === 'string' ? { kind: recorded.kind, id: typeof recorded.id === 'string' ? recorded.id : null } : { kind: 'unknown', id: null };
}

/** `{action, action_digest}` when the bundle was asked with an action; nothing otherwise (it reads as before). */
function boundAction(rows: readonly BundleRow[]): { action?: Action; action_digest?: string } {
  const { action, action_digest: digest } = actionOfRows(rows);
  return action === null || digest === null ? {} : { action, action_digest: digest };
}

/** The receipt the winning claim stored with the resolution, or undefined. */
export function receiptOfRows(rows: readonly BundleRow[]): string | undefined {
  for (const row of winningRows(rows)) if (typeof row.metadata.receipt === 'string') return row.metadata.receipt;
  return undefined;
}

/** The receipt, once the winner's answer is final (a claim still being delivered may yet be rolled back); else null. */
export function finalReceipt(rows: readonly BundleRow[], active: boolean): string | null {
  return settlementOf(rows, active) === Settlement.Final ? (receiptOfRows(rows) ?? null) : null;
}

/** Rebuilds the wire Request of a bundle from its durable rows (given in D2 order). */
export function requestFromRows(rows: readonly BundleRow[]): ClarificationRequest {
  const first = rows[0];
  const createdAt = rows.reduce((min, row) => (row.created_at < min ? row.created_at : min), first.created_at);
  return {
    pending_id: first.metadata.pending_id ?? '',
    session_id: first.task_session_id,
    task_id: bundleTaskId(rows),
    questions: rows.map(questionOf),
    context: typeof first.metadata.context === 'string' ? first.metadata.context : '',
    created_at: createdAt.toISOString(),
    ...boundAction(rows),
  };
}

/** The answers the winner recorded on a bundle's rows, in D2 order (rows without one contribute nothing). */
export function recordedAnswers(rows: readonly BundleRow[]): Answer[] {
  return winningRows(rows).flatMap((row) => (row.metadata.response ? [row.metadata.response] : []));
}

/**
 * The winner's response as the rows record it (R2b): answers in D2 order, `rejected` from the winner's
 * first row, no reject reason (the rows do not store it), answered when the rows last changed.
 */
export function recordedResponse(rows: readonly BundleRow[]): ClarificationResponse {
  const first = rows[0];
  const rejected = winnerStatus(rows) === ClarificationStatus.Rejected;
  const respondedAt = rows.reduce<Date | undefined>(
    (latest, row) => (row.updated_at && (!latest || row.updated_at > latest) ? row.updated_at : latest),
    undefined,
  );
  return {
    pending_id: first?.metadata.pending_id ?? '',
    answers: rejected ? [] : recordedAnswers(rows),
    rejected,
    reject_reason: '',
    responded_at: (respondedAt ?? new Date()).toISOString(),
    ...receiptField(receiptOfRows(rows)),
  };
}

/** `{receipt}` when there is one, else nothing (a response carries the key only once it has a receipt). */
export function receiptField(receipt: string | undefined): { receipt?: string } {
  return receipt === undefined ? {} : { receipt };
}

/** A response as the agent's resume prompt and its waiters see it. */
export function responseFor(pendingId: string, answers: Answer[], rejected: boolean, rejectReason: string): ClarificationResponse {
  return { pending_id: pendingId, answers, rejected, reject_reason: rejectReason, responded_at: new Date().toISOString() };
}

function describeAnswer(question: Question, answer: Answer | undefined): string {
  if (!answer) return '(no answer)';
  const labels = answer.selected_options.map(
    (optionId) => question.options.find((option) => option.option_id === optionId)?.label ?? optionId,
  );
  if (labels.length > 0 && answer.custom_text) return `User selected: [${labels.join(', ')}] and wrote: ${answer.custom_text}`;
  if (labels.length > 0) return `User selected: [${labels.join(', ')}]`;
  if (answer.custom_text) return `User wrote: ${answer.custom_text}`;
  return '(no answer)';
}

/** The prompt that resumes an agent whose question was answered after it stopped waiting. */
export function resumePrompt(request: ClarificationRequest, response: ClarificationResponse): string {
  const parts = request.questions.map((question) => {
    const answer = response.answers.find((candidate) => candidate.question_id === question.id);
    return `You previously asked the user: "${question.prompt}"\n${describeAnswer(question, answer)}`;
  });
  return `${parts.join('\n\n')}\n\nPlease continue with this information.`;
}
