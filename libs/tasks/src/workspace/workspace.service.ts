import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AccessService, type Caller, callerReach } from '#authorization';
import { type PageInput, pageOf, readPageRequest } from '#common';
import { TasksError } from '../tasks.errors.js';
import type { WorkspaceRow } from '../tasks.rows.js';
import { WorkspaceRepository } from './workspace.repository.js';

export interface WorkspacePage {
  workspaces: WorkspaceRow[];
  /** The cursor of the next page; "" on the last one. */
  next_cursor: string;
}

@Injectable()
export class WorkspaceService {
  constructor(
    private readonly workspaces: WorkspaceRepository,
    private readonly access: AccessService,
  ) {}

  /** A user owns what they create; only an unscoped caller may name another owner (or none). */
  create(caller: Caller, name: string, ownerId: string | undefined): Promise<WorkspaceRow> {
    const reach = callerReach(caller);
    if (reach.kind === 'session') throw TasksError.invalidArgument('a session agent cannot create workspaces');
    const userId = reach.kind === 'user' ? reach.userId : undefined;
    if (userId !== undefined && ownerId !== undefined && ownerId !== userId) {
      throw TasksError.invalidArgument('owner_id may name another user only when the caller is an admin');
    }
    return this.workspaces.insert(randomUUID(), name, userId ?? ownerId ?? '');
  }

  /** One page of the visible workspaces, oldest first; `limit` and `cursor` follow the one page rule (LIST_PAGE). */
  async list(caller: Caller, input: PageInput): Promise<WorkspacePage> {
    const { limit, after } = readPageRequest(input, TasksError.invalidArgument);
    const rows = await this.workspaces.list(await this.access.visibleWorkspaceIds(caller), after, limit + 1);
    const page = pageOf(rows, limit, (row) => ({ at: row.created_at_key, id: row.id }));
    return { workspaces: page.rows, next_cursor: page.next_cursor };
  }
}
