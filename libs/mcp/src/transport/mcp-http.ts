import type { Server } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityHeadersOf } from '#common';
import { FastifyMcpTransport, type McpResponseMode } from './fastify-mcp.transport.js';
import { readMcpPost } from './mcp-http-checks.js';
import type { InFlightMcpRequests } from './mcp-in-flight.js';
import type { McpExchange } from '../mcp-tool.js';

/**
 * Serves one MCP request statelessly: a fresh transport and server (`serverFor` the request's
 * exchange) per HTTP request, everything closed when the connection closes. With `inFlight`, a cancellation from the same caller reaches the request it names.
 * Returns once the request is handed to the server, not when it is answered: the reply is hijacked,
 * so Nest releases the request's pipeline (interceptor observables, async frames) while a blocking ask
 * waits, so a blocked ask holds less memory (docs/benchmarks.md, "Waiters").
 */
export async function serveMcpRequest(
  serverFor: (exchange: McpExchange) => Server,
  request: FastifyRequest,
  reply: FastifyReply,
  mode: McpResponseMode,
  inFlight?: { requests: InFlightMcpRequests; caller: string },
): Promise<void> {
  const read = readMcpPost(request);
  if ('refusal' in read) {
    refuseMcpRequest(reply, read.refusal.status, read.refusal.code, read.refusal.message);
    return;
  }
  // Read: the hijacked request holds no copy of its arguments while a call blocks (docs/benchmarks.md, "Waiters").
  request.body = undefined;
  // The transport writes the raw response: it carries the security headers every response does.
  const transport = new FastifyMcpTransport(reply.raw, mode, securityHeadersOf(request));
  const forget = inFlight?.requests.track(inFlight.caller, read.messages, transport);
  reply.hijack();
  reply.raw.on('close', () => {
    forget?.();
    void transport.close();
  });
  inFlight?.requests.cancelNamedIn(inFlight.caller, read.messages);
  await serverFor(transport).connect(transport);
  transport.serve(read.messages, request.headers);
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
