/** What Parley reads of a Telegram Update (https://core.telegram.org/bots/api#update). */
export interface TelegramUpdate {
  update_id: number;
  callback_query?: {
    id: string;
    from: { id: number };
    data?: string;
    message?: { message_id: number; chat: { id: number } };
  };
  message?: { message_id: number; from?: { id: number }; chat: { id: number }; text?: string };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** An update as far as Parley acts on it; undefined when it is not one (no numeric update_id). */
export function parseUpdate(value: unknown): TelegramUpdate | undefined {
  if (!isObject(value) || typeof value.update_id !== 'number') return undefined;
  return value as unknown as TelegramUpdate;
}
