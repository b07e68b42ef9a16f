import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { isInitializeRequest, isJsonContentType, type JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';

/** Why a whole MCP HTTP request is refused, as a JSON-RPC error with no id. */
export interface McpRefusal {
  status: number;
  code: number;
  message: string;
}

/** The SDK's bound on one JSON-RPC batch (its request-body reader's; the constant is not exported). */
const MAX_BATCH_SIZE = 100;

const refusal = (status: number, code: number, message: string): { refusal: McpRefusal } => ({ refusal: { status, code, message } });

const isInitialize = (message: JSONRPCMessage): boolean => 'method' in message && message.method === 'initialize' && isInitializeRequest(message);

/**
 * The JSON-RPC messages of an MCP POST, or the refusal the SDK's Streamable HTTP transport gives a
 * stateless server for it — same checks, order, statuses and messages (webStandardStreamableHttp.js,
 * handlePostRequest). This is the 2025-11-25 leg (see mcp-era.ts): the 2026-07-28 leg is the SDK's own
 * handler, with its own checks. The body was already parsed (and bounded) by Fastify, so the SDK's own
 * read/size/JSON-syntax answers are the app's here.
 */
export function readMcpPost(request: FastifyRequest): { messages: JSONRPCMessage[] } | { refusal: McpRefusal } {
  const { accept, 'content-type': contentType, 'mcp-protocol-version': protocolVersion } = request.headers;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(contentType)) return refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  const body: unknown = request.body;
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) return refusal(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const parsed = (Array.isArray(body) ? body : [body]).map((message) => JSONRPCMessageSchema.safeParse(message));
  const messages = parsed.flatMap((result) => (result.success ? [result.data] : []));
  if (messages.length < parsed.length) return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
  if (messages.some(isInitialize)) {
    if (messages.length > 1) return refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  } else if (protocolVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(protocolVersion))) {
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
    return refusal(400, -32000, `Bad Request: Unsupported protocol version: ${String(protocolVersion)} (supported versions: ${supported})`);
  }
  return { messages };
}
