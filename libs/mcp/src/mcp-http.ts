import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityHeadersOf } from '#common';
import type { InFlightMcpRequests } from './mcp-in-flight.js';

/**
 * How a response travels: `sse` keeps a stream open for as long as a tool runs (so progress can
 * flow) — the session agent's blocking ask; `json` answers with one JSON body, which costs less and
 * suits tools that never report progress.
 */
export type McpResponseMode = 'sse' | 'json';

/**
 * Serves one MCP request statelessly: a fresh transport per HTTP request, everything closed when the
 * connection closes. With `inFlight`, a cancellation from the same caller reaches the request it names.
 * Returns once the request is handed to the transport, not when it is answered: the reply is hijacked,
 * so Nest releases the request's pipeline (interceptor observables, async frames) while a blocking ask
 * waits (issue 11 target 3); a transport failure after that is logged with the request id and ends
 * the connection.
 */
export async function serveMcpRequest(
  server: Server,
  request: FastifyRequest,
  reply: FastifyReply,
  mode: McpResponseMode,
  inFlight?: { requests: InFlightMcpRequests; caller: string },
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: mode === 'json' });
  const forget = inFlight?.requests.track(inFlight.caller, request.body, transport);
  reply.hijack();
  // The transport writes the raw response: it carries the security headers every response does.
  for (const [name, value] of securityHeadersOf(request)) reply.raw.setHeader(name, value);
  reply.raw.on('close', () => {
    forget?.();
    void transport.close();
    void server.close();
  });
  inFlight?.requests.cancelNamedIn(inFlight.caller, request.body);
  await server.connect(transport);
  transport.handleRequest(request.raw, reply.raw, request.body).catch((error: unknown) => {
    request.log.error({ err: error }, 'MCP transport failed');
    reply.raw.destroy();
  });
}

/** A JSON-RPC error answering the whole HTTP request (no message of it was processed). */
export function refuseMcpRequest(reply: FastifyReply, status: number, code: number, message: string): void {
  void reply.status(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Stateless servers have no standalone SSE stream or session to delete. */
export function methodNotAllowed(reply: FastifyReply): void {
  void reply.header('allow', 'POST');
  refuseMcpRequest(reply, 405, -32000, 'Method not allowed.');
}
