import { Injectable } from '@nestjs/common';
import { AccessRepository, type WorkspaceVisibility } from './access.repository.js';
import { type Caller, callerScope } from './caller.js';

/** The one place the visibility rules of baseline-semantics.md live. */
@Injectable()
export class AccessService {
  constructor(private readonly access: AccessRepository) {}

  /**
   * Whether the caller may act on the task. Unscoped callers may act on every task id; a scoped
   * caller may when the task exists and its workspace is empty, dangling, unowned or theirs.
   */
  async authorizeTaskAccess(caller: Caller, taskId: string): Promise<boolean> {
    const userId = callerScope(caller);
    if (userId === undefined) return true;
    if (taskId === '') return false;
    const task = await this.access.findTaskWorkspace(taskId);
    if (!task) return false;
    if (task.workspace_id === '' || !task.workspace_exists) return true;
    return task.owner_id === '' || task.owner_id === userId;
  }

  async authorizeSessionAccess(caller: Caller, sessionId: string): Promise<boolean> {
    const taskId = await this.access.findSessionTaskId(sessionId);
    return taskId !== undefined && this.authorizeTaskAccess(caller, taskId);
  }

  /** Whether the caller sees an existing workspace (unowned or their own). */
  async authorizeWorkspaceAccess(caller: Caller, workspaceId: string): Promise<boolean> {
    const owner = await this.access.findWorkspaceOwner(workspaceId);
    if (owner === undefined) return false;
    const userId = callerScope(caller);
    return userId === undefined || owner === '' || owner === userId;
  }

  async visibleWorkspaceIds(caller: Caller): Promise<WorkspaceVisibility> {
    const userId = callerScope(caller);
    if (userId === undefined) return { all: true };
    return { all: false, ids: await this.access.listWorkspaceIdsVisibleTo(userId) };
  }
}
