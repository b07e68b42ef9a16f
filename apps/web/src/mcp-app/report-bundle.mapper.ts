import type { Bundle, ResolvedBy } from '../inbox/inbox.types.js';

/** A bundle as show_question reports it (GET /api/v1/clarification/{pending_id}'s body). */
export interface BundleReport {
  pending_id: string;
  session_id: string;
  task_id: string;
  created_at: string;
  context: string;
  status: string;
  questions: Array<{ id: string; title: string; prompt: string; options: Array<{ option_id: string; label: string; description: string }> }>;
  action?: { name: string; arguments: unknown };
  resolved_by: { kind: string; user_id: string | null; name: string | null; surface: string; at: string } | null;
  eligible?: boolean;
  routing?: { assigned_to: Array<{ user_id: string; name: string }>; required_answers: number };
}

const OPEN = ['pending', 'delivering'];

function resolvedByOf(report: BundleReport): ResolvedBy | null {
  const by = report.resolved_by;
  return by === null ? null : { kind: by.kind, userId: by.user_id, name: by.name, surface: by.surface, at: by.at };
}

/** The report in the shape the inbox's bundle view renders (its questions carry the bundle's status). */
export function bundleOfReport(report: BundleReport): Bundle {
  const status = OPEN.includes(report.status) ? 'pending' : report.status;
  return {
    pendingId: report.pending_id,
    taskId: report.task_id,
    sessionId: report.session_id,
    createdAt: report.created_at,
    context: report.context,
    questions: report.questions.map((question) => ({
      questionId: question.id,
      title: question.title,
      prompt: question.prompt,
      status,
      options: question.options.map((option) => ({ optionId: option.option_id, label: option.label, description: option.description })),
    })),
    resolvedBy: resolvedByOf(report),
    eligible: report.eligible ?? true,
    routing:
      report.routing === undefined
        ? null
        : { assignedTo: report.routing.assigned_to.map((user) => ({ userId: user.user_id, name: user.name })), requiredAnswers: report.routing.required_answers },
    action: report.action === undefined ? null : { name: report.action.name, arguments: JSON.stringify(report.action.arguments) },
  };
}
