import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';

const TELEGRAM_TOGGLE_TOGGLE = namedStatement(
  'telegram_toggle_toggle',
  ['pending_id', 'account_id', 'option_id'],
  `INSERT INTO chat_toggles (platform, pending_id, platform_user_id, selected) VALUES ('telegram', :pending_id, :account_id, ARRAY[:option_id::text])
       ON CONFLICT (platform, pending_id, platform_user_id) DO UPDATE
          SET selected = CASE WHEN :option_id = ANY(chat_toggles.selected) THEN array_remove(chat_toggles.selected, :option_id) ELSE chat_toggles.selected || :option_id END,
              updated_at = clock_timestamp()
       RETURNING selected`,
);

const TELEGRAM_TOGGLE_SELECTED = namedStatement(
  'telegram_toggle_selected',
  ['pending_id', 'account_id'],
  `SELECT selected FROM chat_toggles WHERE platform = 'telegram' AND pending_id = :pending_id AND platform_user_id = :account_id`,
);

const TELEGRAM_TOGGLE_CLEAR = namedStatement(
  'telegram_toggle_clear',
  ['pending_id', 'account_id'],
  `DELETE FROM chat_toggles WHERE platform = 'telegram' AND pending_id = :pending_id AND platform_user_id = :account_id`,
);

/** The statements TelegramToggleRepository runs, for `npm run sql:write`. */
export const telegramToggleStatements: readonly NamedStatement[] = [
  TELEGRAM_TOGGLE_TOGGLE,
  TELEGRAM_TOGGLE_SELECTED,
  TELEGRAM_TOGGLE_CLEAR,
];

/** `chat_toggles`: a Telegram account's ticks on a multi-select card, until it submits them. */
@Injectable()
export class TelegramToggleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Ticks the option, or unticks it when it was ticked; the ticks now, in the order they were ticked. */
  async toggle(pendingId: string, accountId: string, optionId: string): Promise<string[]> {
    const row = await TELEGRAM_TOGGLE_TOGGLE.row<{ selected: string[] }>(this.dataSource, {
      pending_id: pendingId,
      account_id: accountId,
      option_id: optionId,
    });
    return row?.selected ?? [];
  }

  async selected(pendingId: string, accountId: string): Promise<string[]> {
    const row = await TELEGRAM_TOGGLE_SELECTED.row<{ selected: string[] }>(this.dataSource, {
      pending_id: pendingId,
      account_id: accountId,
    });
    return row?.selected ?? [];
  }

  /** Submitted: the ticks are spent. */
  async clear(pendingId: string, accountId: string): Promise<void> {
    await TELEGRAM_TOGGLE_CLEAR.rows(this.dataSource, { pending_id: pendingId, account_id: accountId });
  }
}
