import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessService, AuthorizationError, type Caller, SessionActorService } from '#authorization';
import { type PageInput, pageOf, readPageRequest } from '#common';
import { inTransaction } from '#persistence';
import { type AfterCommit, runAfterCommit, SessionLifecycle } from '../session/session-lifecycle.js';
import { SessionRepository } from '../session/session.repository.js';
import { TaskRepository } from './task.repository.js';
import { TasksError } from '../tasks.errors.js';
import type { TaskRow } from '../tasks.rows.js';
import { TaskState } from '../wire/task.wire.js';

export interface TaskListInput extends PageInput {
  /** Only the tasks of this workspace; absent or "" ⇒ not filtered. */
  workspaceId?: string | null;
}

export interface TaskPage {
  tasks: TaskRow[];
  /** The cursor of the next page; "" on the last one. */
  next_cursor: string;
}

@Injectable()
export class TaskService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tasks: TaskRepository,
    private readonly sessions: SessionRepository,
    private readonly access: AccessService,
    private readonly lifecycle: SessionLifecycle,
    private readonly actors: SessionActorService,
  ) {}

  /** A task may be filed in no workspace, or in an existing workspace the caller sees. */
  async create(caller: Caller, title: string, workspaceId: string | undefined): Promise<TaskRow> {
    const workspace = workspaceId ?? '';
    if (workspace !== '' && !(await this.access.authorizeWorkspaceAccess(caller, workspace))) {
      throw TasksError.workspaceNotFound();
    }
    return this.tasks.insert(randomUUID(), workspace, title, TaskState.Open);
  }

  async get(caller: Caller, taskId: string): Promise<TaskRow> {
    await this.authorize(caller, taskId);
    const task = await this.tasks.findById(taskId);
    if (!task) throw TasksError.taskNotFound();
    return task;
  }

  /** One page of the visible tasks, oldest first; `limit` and `cursor` follow the one page rule (LIST_PAGE). */
  async list(caller: Caller, input: TaskListInput): Promise<TaskPage> {
    const { limit, after } = readPageRequest(input, TasksError.invalidArgument);
    const visibility = await this.access.visibleWorkspaceIds(caller);
    const workspaceId = input.workspaceId ? input.workspaceId : undefined;
    const rows = await this.tasks.list({ visibility, workspaceId, after, limit: limit + 1 });
    const page = pageOf(rows, limit, (row) => ({ at: row.created_at_key, id: row.id }));
    return { tasks: page.rows, next_cursor: page.next_cursor };
  }

  /** Archives the task; the pending clarifications of its sessions expire with it. */
  async archive(caller: Caller, taskId: string): Promise<TaskRow> {
    await this.authorize(caller, taskId);
    await this.actors.authorizeArchive(caller, taskId);
    const { task, afterCommit } = await inTransaction(this.dataSource, async (manager) => {
      // The task row first: a session being created (it shares that row) has then committed and is
      // locked below, or is refused once this commits — none escapes the expiry with an active bundle.
      const task = await this.tasks.archive(taskId, TaskState.Archived, manager);
      if (!task) throw TasksError.taskNotFound();
      const sessions = await this.sessions.lockByTaskId(taskId, manager);
      const afterCommit: AfterCommit[] = [];
      for (const session of sessions) afterCommit.push(...(await this.lifecycle.sessionEnded(session.id, manager)));
      return { task, afterCommit };
    });
    runAfterCommit(afterCommit);
    return task;
  }

  /** Access is checked here, whichever surface calls; a denial reads exactly like a missing task. */
  private async authorize(caller: Caller, taskId: string): Promise<void> {
    if (!(await this.access.authorizeTaskAccess(caller, taskId))) throw AuthorizationError.notFound('task');
  }
}
