import { z } from 'zod';

/**
 * A workspace and a task as every surface reports them: REST's WorkspaceDoc and TaskDoc, GraphQL's
 * Workspace and Task (in camelCase), and the MCP list_tasks_kandev tool's result (its output schema).
 */

export enum TaskState {
  Open = 'OPEN',
  Archived = 'ARCHIVED',
}

/** What blocks a task or a session: a bundle waiting for an answer. */
export const PENDING_ACTIONS = ['clarification'] as const;

const NEXT_CURSOR = 'Pass as `cursor` for the next page; "" on the last page';
const dateTime = () => z.string().meta({ format: 'date-time' });

export const workspaceWire = z
  .object({
    id: z.string(),
    name: z.string(),
    owner_id: z.string().describe('The owning user id; "" for a workspace nobody owns (visible to everyone)'),
    created_at: dateTime(),
  })
  .describe('A workspace: tasks grouped under one owner.');

export const workspacePageWire = z.object({
  workspaces: z.array(workspaceWire),
  next_cursor: z.string().describe(NEXT_CURSOR),
});

export const taskWire = z
  .object({
    id: z.string(),
    workspace_id: z.string().describe('"" when the task is in no workspace'),
    title: z.string(),
    state: z.enum(TaskState).describe('OPEN, or ARCHIVED once archived'),
    archived_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
    task_pending_action: z.enum(PENDING_ACTIONS).nullable().describe('"clarification" while any session of the task has an active bundle, else null'),
    primary_session_pending_action: z.enum(PENDING_ACTIONS).nullable().describe("\"clarification\" while the task's newest session has an active bundle, else null"),
  })
  .describe('A task: the sessions an agent works in, and whether any of them waits for an answer.');

export const taskPageWire = z.object({
  tasks: z.array(taskWire),
  next_cursor: z.string().describe(NEXT_CURSOR),
});

export type WorkspaceView = z.infer<typeof workspaceWire>;
export type TaskView = z.infer<typeof taskWire>;
export type PendingAction = (typeof PENDING_ACTIONS)[number];
