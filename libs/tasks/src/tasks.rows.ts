import type { SessionState } from './session/session-state.js';
import type { PendingAction, TaskState } from './wire/task.wire.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  owner_id: string;
  created_at: Date;
}

/** A listed row carries its created_at at full (microsecond) precision, for keyset cursors. */
export interface ListedWorkspaceRow extends WorkspaceRow {
  created_at_key: string;
}

export interface TaskRow {
  id: string;
  workspace_id: string;
  title: string;
  state: TaskState;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** The pending-action projection; absent on rows returned by writes (nothing blocks then). */
  task_pending_action?: PendingAction | null;
  primary_session_pending_action?: PendingAction | null;
}

export interface ListedTaskRow extends TaskRow {
  created_at_key: string;
}

export interface SessionRow {
  id: string;
  task_id: string;
  state: SessionState;
  resume_url: string;
  created_at: Date;
  updated_at: Date;
}

export interface TurnRow {
  id: string;
  task_session_id: string;
  task_id: string;
  started_at: Date;
  completed_at: Date | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export interface MessageRow {
  id: string;
  task_session_id: string;
  task_id: string;
  turn_id: string | null;
  author_type: string;
  type: string;
  content: string;
  requests_input: boolean;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  /** created_at at full (microsecond) precision, for keyset cursors. */
  created_at_key: string;
}
