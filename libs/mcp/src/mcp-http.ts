import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InFlightMcpRequests } from './mcp-in-flight.js';

/**
 * Serves one MCP request statelessly: a fresh transport per HTTP request, the SSE stream kept open
 * for as long as a tool runs (so progress can flow), everything closed when the connection closes.
 * With `inFlight`, a cancellation from the same caller reaches the request it names.
 */
export async function serveMcpRequest(
  server: McpServer,
  request: FastifyRequest,
  reply: FastifyReply,
  inFlight?: { requests: InFlightMcpRequests; caller: string },
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const forget = inFlight?.requests.track(inFlight.caller, request.body, transport);
  reply.hijack();
  reply.raw.on('close', () => {
    forget?.();
    void transport.close();
    void server.close();
  });
  inFlight?.requests.cancelNamedIn(inFlight.caller, request.body);
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
}

/** Stateless servers have no standalone SSE stream or session to delete. */
export function methodNotAllowed(reply: FastifyReply): void {
  void reply
    .status(405)
    .header('allow', 'POST')
    .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
}
