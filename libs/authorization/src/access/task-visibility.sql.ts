import { Brackets } from 'typeorm';
import type { WorkspaceVisibility } from './access.repository.js';

/** The bind parameter of the caller's visible workspace ids (null for a caller who sees every workspace). */
export const VISIBLE_WORKSPACE_IDS = 'visible_workspace_ids';

/**
 * Rule L1c as the one condition every list of tasks (and of what hangs off them) shares: the caller is
 * unscoped, or the task's workspace is empty, or names no workspace row (dangling), or is one the
 * caller sees. One array parameter, whatever the number of ids (PostgreSQL caps a statement at 65,535
 * parameters) and whoever asks, so a named statement keeps one text; an empty visible set matches no
 * id (L1b).
 */
export function taskVisibleTo(taskAlias: string): Brackets {
  return new Brackets((query) =>
    query
      .where(`CAST(:${VISIBLE_WORKSPACE_IDS} AS text[]) IS NULL`)
      .orWhere(`${taskAlias}.workspace_id = ''`)
      .orWhere(`NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = ${taskAlias}.workspace_id)`)
      .orWhere(`${taskAlias}.workspace_id = ANY(CAST(:${VISIBLE_WORKSPACE_IDS} AS text[]))`),
  );
}

/** The value of `VISIBLE_WORKSPACE_IDS` for a caller. */
export function visibleWorkspaceIds(visibility: WorkspaceVisibility): string[] | null {
  return visibility.all ? null : [...visibility.ids];
}
