import { Injectable } from '@nestjs/common';
import { AccessRepository } from './access.repository.js';
import type { WorkspaceVisibility } from './task-visibility.sql.js';
import { type Caller, callerReach } from '../caller/caller.js';

const NOTHING: WorkspaceVisibility = { all: false, ids: [] };

/** The one place the visibility rules live (docs/security.md, "Identity and access"; docs/rules.md, A). */
@Injectable()
export class AccessService {
  constructor(private readonly access: AccessRepository) {}

  /**
   * Whether the caller may act on the task. Unscoped callers may act on every task id; a scoped
   * caller may when the task exists and its workspace is empty, dangling, unowned or theirs; a
   * session agent only on its own session's task.
   */
  async authorizeTaskAccess(caller: Caller, taskId: string): Promise<boolean> {
    const reach = callerReach(caller);
    switch (reach.kind) {
      case 'all':
        return true;
      case 'session':
        return caller.kind === 'agent' && taskId !== '' && caller.taskId === taskId;
      case 'user':
        return taskId !== '' && this.access.taskAccessible(taskId, reach.userId);
    }
  }

  /** The task ids among `taskIds` the caller may act on — set-based, one query whatever their number. */
  async accessibleTaskIds(caller: Caller, taskIds: readonly string[]): Promise<Set<string>> {
    const reach = callerReach(caller);
    const candidates = taskIds.filter((taskId) => taskId !== '');
    switch (reach.kind) {
      case 'all':
        return new Set(taskIds);
      case 'session':
        return new Set(candidates.filter((taskId) => caller.kind === 'agent' && caller.taskId === taskId));
      case 'user':
        return new Set(candidates.length === 0 ? [] : await this.access.accessibleTaskIds(candidates, reach.userId));
    }
  }

  async authorizeSessionAccess(caller: Caller, sessionId: string): Promise<boolean> {
    const reach = callerReach(caller);
    switch (reach.kind) {
      case 'all':
        return (await this.access.findSessionTaskId(sessionId)) !== undefined;
      case 'session':
        return reach.sessionId === sessionId;
      case 'user':
        return this.access.sessionAccessible(sessionId, reach.userId);
    }
  }

  /** Whether the caller sees an existing workspace (unowned, their own, or one they are a member of). */
  async authorizeWorkspaceAccess(caller: Caller, workspaceId: string): Promise<boolean> {
    const reach = callerReach(caller);
    switch (reach.kind) {
      case 'session':
        return false;
      case 'all':
        return (await this.access.findWorkspaceOwner(workspaceId)) !== undefined;
      case 'user':
        return this.access.workspaceVisibleTo(workspaceId, reach.userId);
    }
  }

  async visibleWorkspaceIds(caller: Caller): Promise<WorkspaceVisibility> {
    const reach = callerReach(caller);
    switch (reach.kind) {
      case 'all':
        return { all: true };
      case 'session':
        return NOTHING;
      case 'user':
        return { all: false, ids: await this.access.listWorkspaceIdsVisibleTo(reach.userId) };
    }
  }
}
