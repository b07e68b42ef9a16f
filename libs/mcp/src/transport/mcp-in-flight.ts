import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import type { FastifyMcpTransport } from './fastify-mcp.transport.js';

const isRequestId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

/**
 * The in-flight requests of a stateless MCP surface, by caller and JSON-RPC id. Statelessly, a
 * client's `notifications/cancelled` arrives on an HTTP request of its own, served by a fresh server
 * that never saw the call it names — the SDK would drop it and the call would run on (an agent's
 * aborted ask would stay blocked until askTimeoutMs). This routes the cancellation to the transport
 * serving that call; closing it aborts the call (the tool's signal, or the wait of a detached call)
 * and ends the call's HTTP exchange.
 * Ids are only unique per client, so the key includes the authenticated caller.
 */
export class InFlightMcpRequests {
  /** A key's one transport itself (the usual case: a set would cost a blocked ask more than the entry), else a set of them. */
  private readonly transports = new Map<string, FastifyMcpTransport | Set<FastifyMcpTransport>>();

  private static key(caller: string, id: RequestId): string {
    return JSON.stringify([caller, typeof id, String(id)]);
  }

  /** Tracks the requests among the messages; the returned function forgets them. */
  track(caller: string, messages: readonly JSONRPCMessage[], transport: FastifyMcpTransport): () => void {
    const keys = messages.flatMap((message) => ('method' in message && 'id' in message ? [InFlightMcpRequests.key(caller, message.id)] : []));
    for (const key of keys) this.add(key, transport);
    return () => {
      for (const key of keys) this.remove(key, transport);
    };
  }

  /** Closes the transports serving the requests the messages' `notifications/cancelled` name. */
  cancelNamedIn(caller: string, messages: readonly JSONRPCMessage[]): void {
    for (const message of messages) {
      if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) continue;
      const requestId = message.params?.requestId;
      if (!isRequestId(requestId)) continue;
      const serving = this.transports.get(InFlightMcpRequests.key(caller, requestId));
      for (const transport of serving instanceof Set ? [...serving] : serving ? [serving] : []) void transport.close();
    }
  }

  private add(key: string, transport: FastifyMcpTransport): void {
    const serving = this.transports.get(key);
    if (serving === undefined) this.transports.set(key, transport);
    else if (serving instanceof Set) serving.add(transport);
    else if (serving !== transport) this.transports.set(key, new Set([serving, transport]));
  }

  private remove(key: string, transport: FastifyMcpTransport): void {
    const serving = this.transports.get(key);
    if (serving === transport) this.transports.delete(key);
    else if (serving instanceof Set && serving.delete(transport)) {
      const [only, ...others] = serving;
      if (only && others.length === 0) this.transports.set(key, only);
    }
  }
}
