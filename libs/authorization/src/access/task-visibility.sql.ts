import { Brackets } from 'typeorm';

/** Which workspaces a caller sees: every one, or exactly these ids. */
export type WorkspaceVisibility = { readonly all: true } | { readonly all: false; readonly ids: readonly string[] };

/*
 * The visibility rule, stated once. A user sees a workspace that is unowned or theirs, or one they are
 * a member of. A caller sees a task whose workspace is empty, names no workspace row (dangling), or is
 * one the caller sees. Each statement below reads the rule in the form its plan needs: the set of a
 * user's workspaces (read once per list), a test of one workspace row, a test of one task for one user,
 * or a test of one task against the set read before.
 */

/** A user owns the workspace whose owner column is `ownerColumn`, or no one does. */
function ownerSees(ownerColumn: string, userIdSql: string): string {
  return `${ownerColumn} IN ('', ${userIdSql})`;
}

/** The membership row whose user column is `memberColumn` is the user's. */
function memberSees(memberColumn: string, userIdSql: string): string {
  return `${memberColumn} = ${userIdSql}`;
}

/** The task's workspace is empty, dangling, or passes `workspaceSeen` (a condition on `<task>.workspace_id`). */
function taskWorkspaceSeen(taskAlias: string, workspaceSeen: string): string {
  return `${taskAlias}.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = ${taskAlias}.workspace_id) OR ${workspaceSeen}`;
}

/** The ids of the workspaces the user sees (`userIdSql`: the SQL of the user id, a bind parameter). */
export function visibleWorkspaceIdsSql(userIdSql: string): string {
  return `SELECT id FROM workspaces WHERE ${ownerSees('owner_id', userIdSql)}
   UNION SELECT workspace_id FROM workspace_members WHERE ${memberSees('user_id', userIdSql)}`;
}

/** Whether the user sees the workspace row `workspaceAlias`. */
export function workspaceVisibleBy(workspaceAlias: string, userIdSql: string): string {
  return `(${ownerSees(`${workspaceAlias}.owner_id`, userIdSql)} OR EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = ${workspaceAlias}.id AND ${memberSees('m.user_id', userIdSql)}))`;
}

/**
 * The rule of AccessService.authorizeTaskAccess for a scoped user, as one SQL condition over a task
 * alias (null when the task is missing): the task exists and the user sees it.
 */
export function taskAccessibleBy(taskAlias: string, userIdSql: string): string {
  return `(${taskAlias}.id IS NOT NULL AND ${taskAlias}.id <> '' AND (${taskWorkspaceSeen(
    taskAlias,
    `EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = ${taskAlias}.workspace_id AND ${ownerSees('access_w.owner_id', userIdSql)})
    OR EXISTS (SELECT 1 FROM workspace_members access_m WHERE access_m.workspace_id = ${taskAlias}.workspace_id AND ${memberSees('access_m.user_id', userIdSql)})`,
  )}))`;
}

/** The bind parameter of the caller's visible workspace ids (null for a caller who sees every workspace). */
export const VISIBLE_WORKSPACE_IDS = 'visible_workspace_ids';

/**
 * Rule L1c as the one condition every list of tasks (and of what hangs off them) shares: the caller is
 * unscoped, or sees the task, its workspaces read before (`visibleWorkspaceIdsSql`). One array
 * parameter, whatever the number of ids (PostgreSQL caps a statement at 65,535 parameters) and whoever
 * asks, so a named statement keeps one text; an empty visible set matches no id (L1b).
 */
export function taskVisibleTo(taskAlias: string): Brackets {
  return new Brackets((query) =>
    query.where(
      `CAST(:${VISIBLE_WORKSPACE_IDS} AS text[]) IS NULL OR ${taskWorkspaceSeen(taskAlias, `${taskAlias}.workspace_id = ANY(CAST(:${VISIBLE_WORKSPACE_IDS} AS text[]))`)}`,
    ),
  );
}

/** The value of `VISIBLE_WORKSPACE_IDS` for a caller. */
export function visibleWorkspaceIds(visibility: WorkspaceVisibility): string[] | null {
  return visibility.all ? null : [...visibility.ids];
}
