import { Injectable } from '@nestjs/common';
import { type Caller, isAdmin } from '#authorization';
import { ChatError } from '../chat.errors.js';
import { type ChatPlatformName, isChatPlatformName } from '../chat.types.js';
import { ChatDestinationRepository, type ChatDestinationRow } from './chat-destination.repository.js';

export interface ChatDestinationView {
  workspace_id: string;
  platform: ChatPlatformName;
  destination: string;
  updated_at: string;
}

const view = (row: ChatDestinationRow): ChatDestinationView => ({
  workspace_id: row.workspace_id,
  platform: row.platform,
  destination: row.destination,
  updated_at: row.updated_at.toISOString(),
});

/** A channel id (Slack `C…`/`G…`) or chat id (Telegram: a number, maybe negative, or `@channel`). */
const DESTINATION = /^(?:[A-Z0-9]{2,40}|-?\d{1,20}|@[A-Za-z0-9_]{4,40})$/;

/**
 * Where a workspace's bundles are posted on each platform — its owner's (or an admin's) to set;
 * anyone else gets the workspace's "not found". REST, GraphQL and the CLI call this.
 */
@Injectable()
export class ChatDestinationService {
  constructor(private readonly destinations: ChatDestinationRepository) {}

  async set(caller: Caller, workspaceId: string, platform: unknown, destination: unknown): Promise<ChatDestinationView> {
    const name = this.platformOf(platform);
    if (typeof destination !== 'string' || !DESTINATION.test(destination)) {
      throw ChatError.invalid('destination must be a Slack channel id (C…) or a Telegram chat id');
    }
    await this.managed(caller, workspaceId);
    return view((await this.destinations.set(workspaceId, name, destination)) as ChatDestinationRow);
  }

  async clear(caller: Caller, workspaceId: string, platform: unknown): Promise<void> {
    const name = this.platformOf(platform);
    await this.managed(caller, workspaceId);
    await this.destinations.clear(workspaceId, name);
  }

  async list(caller: Caller, workspaceId: string): Promise<ChatDestinationView[]> {
    await this.managed(caller, workspaceId);
    return (await this.destinations.list(workspaceId)).map(view);
  }

  private platformOf(platform: unknown): ChatPlatformName {
    if (!isChatPlatformName(platform)) throw ChatError.invalid('platform must be "slack" or "telegram"');
    return platform;
  }

  private async managed(caller: Caller, workspaceId: string): Promise<void> {
    const owner = isAdmin(caller) ? null : caller.kind === 'user' ? caller.userId : undefined;
    if (owner === undefined || !(await this.destinations.manages(workspaceId, owner))) throw ChatError.notFound('workspace');
  }
}
