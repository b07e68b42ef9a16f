/** The chat platforms Parley answers on (each a surface of its own in the audit trail and the receipt). */
export type ChatPlatformName = 'slack' | 'telegram';

export const CHAT_PLATFORM_NAMES: readonly ChatPlatformName[] = ['slack', 'telegram'];

export function isChatPlatformName(value: unknown): value is ChatPlatformName {
  return typeof value === 'string' && (CHAT_PLATFORM_NAMES as readonly string[]).includes(value);
}
