import { Injectable } from '@nestjs/common';
import { INPUT_LIMITS } from '#common';
import { AuthorizationError, AuthorizationErrorCode } from '../authorization.errors.js';
import { type Caller, isAdmin } from '../caller/caller.js';
import { type MemberRow, MembershipRepository } from './membership.repository.js';

export interface MemberView {
  workspace_id: string;
  user_id: string;
  name: string;
  added_at: string;
}

export function memberView(row: MemberRow): MemberView {
  return { workspace_id: row.workspace_id, user_id: row.user_id, name: row.name, added_at: row.created_at.toISOString() };
}

function invalid(message: string): AuthorizationError {
  return new AuthorizationError(AuthorizationErrorCode.InvalidArgument, message);
}

/** A user id given as an argument: a non-empty string of at most INPUT_LIMITS.id characters. */
function userIdArgument(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalid(`${field} must be a non-empty string`);
  if (value.length > INPUT_LIMITS.id) throw invalid(`${field} must be shorter than or equal to ${INPUT_LIMITS.id} characters`);
  return value;
}

/**
 * Workspace members (admin only, on every surface that offers it): a member sees the workspace's
 * tasks and bundles exactly as its owner does (docs/security.md). Adding is idempotent; an unknown
 * user is a 400 naming the field, an unknown workspace a 404; removing takes effect on the next
 * request and ends the member's open subscriptions scoped to that workspace.
 */
@Injectable()
export class MembershipService {
  constructor(private readonly members: MembershipRepository) {}

  async add(caller: Caller, workspaceId: string, userId: unknown, field = 'user_id'): Promise<{ member: MemberView; added: boolean }> {
    await this.assertWorkspace(caller, workspaceId);
    const user = userIdArgument(userId, field);
    if (!(await this.members.namesOf([user])).has(user)) throw invalid(`${field} names no user`);
    const { member, added } = await this.members.add(workspaceId, user);
    return { member: memberView(member), added };
  }

  async list(caller: Caller, workspaceId: string): Promise<MemberView[]> {
    await this.assertWorkspace(caller, workspaceId);
    return (await this.members.list(workspaceId)).map(memberView);
  }

  async remove(caller: Caller, workspaceId: string, userId: unknown, field = 'user_id'): Promise<{ workspace_id: string; user_id: string; removed: boolean }> {
    await this.assertWorkspace(caller, workspaceId);
    const user = userIdArgument(userId, field);
    return { workspace_id: workspaceId, user_id: user, removed: await this.members.remove(workspaceId, user) };
  }

  /**
   * The users among `userIds` an ask of `asker` on the session may route to, by id, with their names:
   * for an unscoped asker (an admin, auth disabled) every user that exists; for anyone else only the
   * users who can see the session's task, so an ask tells a scoped asker nothing — not even whether
   * it exists — of a user outside its task's workspace.
   */
  routableNames(asker: { readonly kind: Caller['kind'] }, sessionId: string, userIds: readonly string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return Promise.resolve(new Map<string, string>());
    return isAdmin(asker) ? this.members.namesOf(userIds) : this.members.namesOfUsersSeeingSession(sessionId, userIds);
  }

  /** Only an unscoped caller manages members; to anyone else the workspace is as missing as an unknown one. */
  private async assertWorkspace(caller: Caller, workspaceId: string): Promise<void> {
    if (!isAdmin(caller) || !(await this.members.workspaceExists(workspaceId))) throw AuthorizationError.notFound('workspace');
  }
}
