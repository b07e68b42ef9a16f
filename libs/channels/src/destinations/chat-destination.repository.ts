import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import type { ChatPlatformName } from '../chat.types.js';

export interface ChatDestinationRow {
  workspace_id: string;
  platform: ChatPlatformName;
  destination: string;
  updated_at: Date;
}

const CHAT_DESTINATION_MANAGES = namedStatement(
  'chat_destination_manages',
  ['workspace_id', 'owner'],
  `SELECT 1 AS one FROM workspaces WHERE id = :workspace_id AND (:owner::text IS NULL OR owner_id = :owner)`,
);

const CHAT_DESTINATION_SET = namedStatement(
  'chat_destination_set',
  ['workspace_id', 'platform', 'destination'],
  `INSERT INTO chat_destinations (workspace_id, platform, destination) VALUES (:workspace_id, :platform, :destination)
       ON CONFLICT (workspace_id, platform) DO UPDATE SET destination = EXCLUDED.destination, updated_at = clock_timestamp()
       RETURNING workspace_id, platform, destination, updated_at`,
);

const CHAT_DESTINATION_CLEAR = namedStatement(
  'chat_destination_clear',
  ['workspace_id', 'platform'],
  `DELETE FROM chat_destinations WHERE workspace_id = :workspace_id AND platform = :platform`,
);

const CHAT_DESTINATION_LIST = namedStatement(
  'chat_destination_list',
  ['workspace_id'],
  `SELECT workspace_id, platform, destination, updated_at FROM chat_destinations WHERE workspace_id = :workspace_id ORDER BY platform`,
);

/** The statements ChatDestinationRepository runs, for `npm run sql:write`. */
export const chatDestinationStatements: readonly NamedStatement[] = [
  CHAT_DESTINATION_MANAGES,
  CHAT_DESTINATION_SET,
  CHAT_DESTINATION_CLEAR,
  CHAT_DESTINATION_LIST,
];

/** `chat_destinations`: where each workspace's bundles are posted, per platform. */
@Injectable()
export class ChatDestinationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the workspace exists and `owner` manages it (null: anyone may — the admin). */
  async manages(workspaceId: string, owner: string | null): Promise<boolean> {
    const row = await CHAT_DESTINATION_MANAGES.row<{ one: number }>(this.dataSource, { workspace_id: workspaceId, owner });
    return row !== undefined;
  }

  set(workspaceId: string, platform: ChatPlatformName, destination: string): Promise<ChatDestinationRow | undefined> {
    return CHAT_DESTINATION_SET.row<ChatDestinationRow>(this.dataSource, { workspace_id: workspaceId, platform, destination });
  }

  async clear(workspaceId: string, platform: ChatPlatformName): Promise<void> {
    await CHAT_DESTINATION_CLEAR.rows(this.dataSource, { workspace_id: workspaceId, platform });
  }

  list(workspaceId: string): Promise<ChatDestinationRow[]> {
    return CHAT_DESTINATION_LIST.rows<ChatDestinationRow>(this.dataSource, { workspace_id: workspaceId });
  }
}
