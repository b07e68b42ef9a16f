import type { Answer, BundleReport, ResolvedBy } from '#clarification';
import type { CardQuestion, CardView } from './card.types.js';

const SURFACE_NAMES: Record<string, string> = {
  web: 'the inbox',
  rest: 'the REST API',
  mcp: 'MCP',
  graphql: 'GraphQL',
  command: 'a connector command',
  slack: 'Slack',
  telegram: 'Telegram',
};

/** Where a person answers the bundle in the browser: the inbox page's route for it. */
export function inboxLink(baseUrl: string, pendingId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/#/q/${encodeURIComponent(pendingId)}`;
}

export function winnerName(winner: ResolvedBy | null): string {
  if (!winner) return 'someone';
  if (winner.kind === 'user') return winner.name || winner.user_id || 'a user';
  if (winner.kind === 'admin') return 'an administrator';
  if (winner.kind === 'agent') return "the session's agent";
  return 'someone';
}

/** The chosen options' labels (and any free text), question by question. */
export function answerSummary(questions: readonly CardQuestion[], answers: readonly Answer[]): string {
  return answers
    .map((answer) => {
      const question = questions.find((candidate) => candidate.id === answer.question_id);
      const labels = answer.selected_options.map((id) => question?.options.find((option) => option.id === id)?.label ?? id);
      const parts = [...labels, ...(answer.custom_text ? [`“${answer.custom_text}”`] : [])];
      return questions.length > 1 ? `${question?.title || answer.question_id}: ${parts.join(', ')}` : parts.join(', ');
    })
    .join('; ');
}

function outcomeOf(report: BundleReport, questions: CardQuestion[]): string | null {
  const via = (winner: ResolvedBy | null) => (winner ? ` via ${SURFACE_NAMES[winner.surface] ?? winner.surface}` : '');
  switch (report.status) {
    case 'pending':
    case 'delivering':
      return null;
    case 'answered':
      return `Answered by ${winnerName(report.resolved_by)}${via(report.resolved_by)}: ${answerSummary(questions, report.response?.answers ?? [])}`;
    case 'rejected':
      return `Declined by ${winnerName(report.resolved_by)}${via(report.resolved_by)}`;
    case 'expired':
      return 'Expired unanswered';
    case 'cancelled':
      return 'Cancelled by the agent';
    case 'inactive':
      return 'Superseded: the agent asked again';
  }
}

/** The card of a bundle as it stands (read as the operator: a card is the bundle's, not a viewer's). */
export function cardOf(report: BundleReport, baseUrl: string): CardView {
  const request = report.request;
  const questions: CardQuestion[] = request.questions.map((question) => ({
    id: question.id,
    title: question.title,
    prompt: question.prompt,
    options: question.options.map((option) => ({ id: option.option_id, label: option.label })),
    multiSelect: question.multi_select === true,
  }));
  const outcome = outcomeOf(report, questions);
  const routing = report.routing;
  return {
    pendingId: request.pending_id,
    inboxUrl: inboxLink(baseUrl, request.pending_id),
    context: request.context,
    questions,
    action: request.action ?? null,
    assignees: routing?.assigned_to.map((user) => user.name || user.user_id) ?? [],
    quorum: routing && routing.required_answers > 1 ? { votes: report.votes?.length ?? 0, required: routing.required_answers } : null,
    open: outcome === null,
    outcome,
  };
}
