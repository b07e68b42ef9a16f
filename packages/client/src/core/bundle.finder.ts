import type { Transport } from './transport.js';

interface Message {
  type: string;
  metadata: Record<string, unknown>;
}

/**
 * The pending id of a bundle asked on `sessionId` whose context contains `marker`, newest first;
 * undefined when there is none. Lets an agent that keeps no file of its own (a LangGraph thread,
 * whose checkpointer holds everything else) find the bundle it asked before a restart, instead of
 * asking again: the marker (an interrupt's id) is written into the bundle's context when asking.
 */
export async function findBundleByMarker(transport: Transport, sessionId: string, marker: string, signal?: AbortSignal): Promise<string | undefined> {
  let cursor = '';
  let found: string | undefined;
  do {
    const query = { limit: 200, ...(cursor ? { cursor } : {}) };
    const page = await transport.send(() => transport.api.GET('/api/v1/sessions/{id}/messages', { params: { path: { id: sessionId }, query }, signal }), signal);
    for (const message of page.messages as Message[]) {
      const { context, pending_id: pendingId } = message.metadata;
      if (message.type === 'clarification_request' && typeof context === 'string' && context.includes(marker) && typeof pendingId === 'string') found = pendingId;
    }
    cursor = page.next_cursor;
  } while (cursor !== '');
  return found;
}
