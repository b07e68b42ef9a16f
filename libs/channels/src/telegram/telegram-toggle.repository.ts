import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';

/** `chat_toggles`: a Telegram account's ticks on a multi-select card, until it submits them. */
@Injectable()
export class TelegramToggleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Ticks the option, or unticks it when it was ticked; the ticks now, in the order they were ticked. */
  async toggle(pendingId: string, accountId: string, optionId: string): Promise<string[]> {
    const row = await queryRow<{ selected: string[] }>(
      this.dataSource,
      `INSERT INTO chat_toggles (platform, pending_id, platform_user_id, selected) VALUES ('telegram', $1, $2, ARRAY[$3::text])
       ON CONFLICT (platform, pending_id, platform_user_id) DO UPDATE
          SET selected = CASE WHEN $3 = ANY(chat_toggles.selected) THEN array_remove(chat_toggles.selected, $3) ELSE chat_toggles.selected || $3 END,
              updated_at = clock_timestamp()
       RETURNING selected`,
      [pendingId, accountId, optionId],
    );
    return row?.selected ?? [];
  }

  async selected(pendingId: string, accountId: string): Promise<string[]> {
    const row = await queryRow<{ selected: string[] }>(
      this.dataSource,
      `SELECT selected FROM chat_toggles WHERE platform = 'telegram' AND pending_id = $1 AND platform_user_id = $2`,
      [pendingId, accountId],
    );
    return row?.selected ?? [];
  }

  /** Submitted: the ticks are spent. */
  async clear(pendingId: string, accountId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM chat_toggles WHERE platform = 'telegram' AND pending_id = $1 AND platform_user_id = $2`, [pendingId, accountId]);
  }
}
