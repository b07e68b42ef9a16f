import { errorMessage, requestJson } from '../http.js';

export type ConfirmOutcome =
  | { kind: 'linked'; platform: string; accountId: string }
  | { kind: 'unknown' }
  | { kind: 'refused'; message: string }
  | { kind: 'signed-out' };

/** POST /api/v1/chat-links/confirm {code}: links the chat account that asked to the signed-in user. */
export async function confirmChatLink(code: string): Promise<ConfirmOutcome> {
  const response = await requestJson('POST', '/api/v1/chat-links/confirm', { code });
  if (response.status === 401) return { kind: 'signed-out' };
  if (response.status === 404) return { kind: 'unknown' };
  if (!response.ok) return { kind: 'refused', message: await errorMessage(response) };
  const body = (await response.json()) as { platform: string; account_id: string };
  return { kind: 'linked', platform: body.platform, accountId: body.account_id };
}
