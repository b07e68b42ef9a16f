import type { MessageRow, SessionRow, TaskRow, TurnRow, WorkspaceRow } from './tasks.rows.js';
import type { TaskView, WorkspaceView } from './wire/task.wire.js';

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export function workspaceView(row: WorkspaceRow): WorkspaceView {
  return { id: row.id, name: row.name, owner_id: row.owner_id, created_at: row.created_at.toISOString() };
}

export function taskView(row: TaskRow): TaskView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    title: row.title,
    state: row.state,
    archived_at: iso(row.archived_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    task_pending_action: row.task_pending_action ?? null,
    primary_session_pending_action: row.primary_session_pending_action ?? null,
  };
}

export function sessionView(row: SessionRow) {
  return {
    id: row.id,
    task_id: row.task_id,
    state: row.state,
    resume_url: row.resume_url,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function turnView(row: TurnRow) {
  return {
    id: row.id,
    session_id: row.task_session_id,
    task_id: row.task_id,
    started_at: row.started_at.toISOString(),
    completed_at: iso(row.completed_at),
  };
}

export function messageView(row: MessageRow) {
  return {
    id: row.id,
    turn_id: row.turn_id,
    type: row.type,
    author_type: row.author_type,
    content: row.content,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
