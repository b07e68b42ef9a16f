import {
  type Answer,
  type DescribedBundle,
  parseResolvedBy,
  type PendingBundleView,
  PendingPage,
  type QuestionEventRow,
  type QuestionEventType,
  type Resolution,
  type ResolutionResponse,
  type ResolvedBy,
} from '#clarification';
import type { MemberView } from '#authorization';
import type { WorkspaceMemberModel } from '../models/routing.model.js';
import { type TaskRow, taskView, type WorkspaceRow, workspaceView } from '#tasks';
import type { QuestionEventModel } from '../models/question-event.model.js';
import type { PageInfoModel, PendingBundleModel, PendingQuestionConnectionModel } from '../models/pending-question.model.js';
import type { ResolutionModel, ResolutionResponseModel } from '../models/resolution.model.js';
import type { ResolvedByModel } from '../models/resolved-by.model.js';
import type { TaskModel, WorkspaceModel } from '../models/task.model.js';

export function resolvedByModel(resolvedBy: ResolvedBy | null): ResolvedByModel | null {
  return resolvedBy && { kind: resolvedBy.kind, userId: resolvedBy.user_id, name: resolvedBy.name, surface: resolvedBy.surface, at: resolvedBy.at };
}

/** A bundle of a list (no winner, no deadline shown) or one described by question(pendingId). */
export function bundleModel(bundle: PendingBundleView | DescribedBundle): PendingBundleModel {
  return {
    resolvedBy: 'resolved_by' in bundle ? resolvedByModel(bundle.resolved_by) : null,
    receipt: 'receipt' in bundle ? bundle.receipt : null,
    action: bundle.action === undefined ? null : { name: bundle.action.name, arguments: JSON.stringify(bundle.action.arguments) },
    actionDigest: bundle.action_digest ?? null,
    expiresAt: 'expires_at' in bundle ? bundle.expires_at : null,
    eligible: bundle.eligible ?? true,
    routing:
      bundle.routing === undefined
        ? null
        : {
            answererIds: bundle.routing.answerers?.user_ids ?? null,
            assignedTo: bundle.routing.assigned_to.map((user) => ({ userId: user.user_id, name: user.name })),
            requiredAnswers: bundle.routing.required_answers,
          },
    votes: 'votes' in bundle && bundle.votes !== undefined
      ? bundle.votes.map((vote) => ({
          user: { kind: vote.user.kind, userId: vote.user.user_id, name: vote.user.name },
          surface: vote.surface,
          at: vote.at,
          rejected: vote.rejected ?? null,
          answers: vote.answers?.map(answerModel) ?? null,
        }))
      : [],
    pendingId: bundle.pending_id,
    taskId: bundle.task_id,
    sessionId: bundle.session_id,
    createdAt: bundle.created_at,
    ageSeconds: bundle.age_seconds,
    context: bundle.context,
    questions: bundle.questions.map((question) => ({
      questionId: question.question_id,
      title: question.title,
      prompt: question.prompt,
      status: question.status,
      options: question.options.map((option) => ({ optionId: option.option_id, label: option.label, description: option.description })),
    })),
  };
}

/** A page's position as every connection reports it: endCursor is "" on the last page. */
export function pageInfo(nextCursor: string): PageInfoModel {
  return { hasNextPage: nextCursor !== '', endCursor: nextCursor };
}

export function connectionModel(page: PendingPage): PendingQuestionConnectionModel {
  return { nodes: page.bundles.map(bundleModel), count: page.count, pageInfo: pageInfo(page.next_cursor) };
}

function answerModel(answer: Answer) {
  return { questionId: answer.question_id ?? '', selectedOptions: [...(answer.selected_options ?? [])], customText: answer.custom_text ?? '' };
}

export function responseModel(response: ResolutionResponse): ResolutionResponseModel {
  return { answers: response.answers.map(answerModel), rejected: response.rejected, rejectReason: response.reject_reason ?? '' };
}

export function resolutionModel(resolution: Resolution): ResolutionModel {
  const vote = resolution.vote;
  return {
    claimed: resolution.claimed,
    status: resolution.status,
    response: responseModel(resolution.response),
    vote: vote === undefined ? null : { replayed: vote.replayed, votes: vote.votes, requiredAnswers: vote.required_answers },
    receipt: resolution.receipt,
  };
}

export function memberModel(member: MemberView): WorkspaceMemberModel {
  return { workspaceId: member.workspace_id, userId: member.user_id, name: member.name, addedAt: member.added_at };
}

export function taskModel(row: TaskRow): TaskModel {
  const view = taskView(row);
  return {
    id: view.id,
    workspaceId: view.workspace_id,
    title: view.title,
    state: view.state,
    archivedAt: view.archived_at,
    createdAt: view.created_at,
    updatedAt: view.updated_at,
    taskPendingAction: view.task_pending_action,
    primarySessionPendingAction: view.primary_session_pending_action,
  };
}

export function workspaceModel(row: WorkspaceRow): WorkspaceModel {
  const view = workspaceView(row);
  return { id: view.id, name: view.name, ownerId: view.owner_id, createdAt: view.created_at };
}

export function questionEventModel(row: QuestionEventRow): QuestionEventModel {
  const response = row.payload.response as ResolutionResponse | undefined;
  return {
    id: row.id,
    type: row.type as QuestionEventType,
    pendingId: row.pending_id,
    sessionId: row.session_id,
    taskId: row.task_id,
    workspaceId: row.workspace_id,
    occurredAt: row.created_at.toISOString(),
    response: response ? responseModel(response) : null,
    resolvedBy: resolvedByModel(parseResolvedBy(row.payload.resolved_by)),
    receipt: typeof row.payload.receipt === 'string' ? row.payload.receipt : null,
    eligible: Array.isArray(row.payload.eligible)
      ? (row.payload.eligible as { user_id?: string; name?: string }[]).map((user) => ({ userId: user.user_id ?? '', name: user.name ?? '' }))
      : null,
  };
}
