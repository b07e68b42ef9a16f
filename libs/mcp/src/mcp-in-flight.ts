import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

type JsonRpcId = string | number;

function messagesOf(body: unknown): Record<string, unknown>[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((message): message is Record<string, unknown> => typeof message === 'object' && message !== null);
}

const isJsonRpcId = (value: unknown): value is JsonRpcId => typeof value === 'string' || typeof value === 'number';

/**
 * The in-flight requests of a stateless MCP surface, by caller and JSON-RPC id. Statelessly, a
 * client's `notifications/cancelled` arrives on an HTTP request of its own, served by a fresh server
 * that never saw the call it names — the SDK would drop it and the call would run on (an agent's
 * aborted ask would stay blocked until askTimeoutMs). This routes the cancellation to the transport
 * serving that call; closing it aborts the tool's signal and ends the call's HTTP exchange.
 * Ids are only unique per client, so the key includes the authenticated caller.
 */
export class InFlightMcpRequests {
  private readonly transports = new Map<string, Set<StreamableHTTPServerTransport>>();

  private static key(caller: string, id: JsonRpcId): string {
    return JSON.stringify([caller, typeof id, String(id)]);
  }

  /** Tracks the requests a body carries; the returned function forgets them. */
  track(caller: string, body: unknown, transport: StreamableHTTPServerTransport): () => void {
    const keys = messagesOf(body)
      .filter((message) => typeof message.method === 'string' && isJsonRpcId(message.id))
      .map((message) => InFlightMcpRequests.key(caller, message.id as JsonRpcId));
    for (const key of keys) this.transports.set(key, (this.transports.get(key) ?? new Set()).add(transport));
    return () => {
      for (const key of keys) {
        const set = this.transports.get(key);
        set?.delete(transport);
        if (set?.size === 0) this.transports.delete(key);
      }
    };
  }

  /** Closes the transports serving the requests a body's `notifications/cancelled` name. */
  cancelNamedIn(caller: string, body: unknown): void {
    for (const message of messagesOf(body)) {
      if (message.method !== 'notifications/cancelled' || message.id !== undefined) continue;
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (!isJsonRpcId(requestId)) continue;
      for (const transport of this.transports.get(InFlightMcpRequests.key(caller, requestId)) ?? []) void transport.close();
    }
  }
}
