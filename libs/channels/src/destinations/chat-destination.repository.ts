import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow, queryRows } from '#persistence';
import type { ChatPlatformName } from '../chat.types.js';

export interface ChatDestinationRow {
  workspace_id: string;
  platform: ChatPlatformName;
  destination: string;
  updated_at: Date;
}

/** `chat_destinations`: where each workspace's bundles are posted, per platform. */
@Injectable()
export class ChatDestinationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether the workspace exists and `owner` manages it (null: anyone may — the admin). */
  async manages(workspaceId: string, owner: string | null): Promise<boolean> {
    const row = await queryRow<{ one: number }>(
      this.dataSource,
      `SELECT 1 AS one FROM workspaces WHERE id = $1 AND ($2::text IS NULL OR owner_id = $2)`,
      [workspaceId, owner],
    );
    return row !== undefined;
  }

  set(workspaceId: string, platform: ChatPlatformName, destination: string): Promise<ChatDestinationRow | undefined> {
    return queryRow<ChatDestinationRow>(
      this.dataSource,
      `INSERT INTO chat_destinations (workspace_id, platform, destination) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, platform) DO UPDATE SET destination = EXCLUDED.destination, updated_at = clock_timestamp()
       RETURNING workspace_id, platform, destination, updated_at`,
      [workspaceId, platform, destination],
    );
  }

  async clear(workspaceId: string, platform: ChatPlatformName): Promise<void> {
    await this.dataSource.query(`DELETE FROM chat_destinations WHERE workspace_id = $1 AND platform = $2`, [workspaceId, platform]);
  }

  list(workspaceId: string): Promise<ChatDestinationRow[]> {
    return queryRows<ChatDestinationRow>(
      this.dataSource,
      `SELECT workspace_id, platform, destination, updated_at FROM chat_destinations WHERE workspace_id = $1 ORDER BY platform`,
      [workspaceId],
    );
  }
}
