import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/server';

const tracer = trace.getTracer('parley');

function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * An MCP request's server span, by the OpenTelemetry MCP semantic conventions: named
 * `{mcp.method.name} {tool}`, with `mcp.method.name`, `jsonrpc.request.id`, `gen_ai.tool.name` (a
 * tools/call), and `mcp.session.id` / `mcp.protocol.version` when the client sent them (a 2026-07-28
 * request has no session, so never the first; its `MCP-Protocol-Version` header is required).
 */
function startMcpSpan(message: JSONRPCRequest, headers: IncomingHttpHeaders): Span {
  const name = message.method === 'tools/call' ? message.params?.name : undefined;
  const tool = typeof name === 'string' ? name : undefined;
  const sessionId = headerOf(headers, 'mcp-session-id');
  const protocolVersion = headerOf(headers, 'mcp-protocol-version');
  return tracer.startSpan(tool === undefined ? message.method : `${message.method} ${tool}`, {
    kind: SpanKind.SERVER,
    attributes: {
      'mcp.method.name': message.method,
      'jsonrpc.request.id': String(message.id),
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...(tool === undefined ? {} : { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' }),
      ...(sessionId === undefined ? {} : { 'mcp.session.id': sessionId }),
      ...(protocolVersion === undefined ? {} : { 'mcp.protocol.version': protocolVersion }),
    },
  });
}

/**
 * Runs `handle` inside `message`'s span (the active span meanwhile, so what the call does — an ask,
 * a claim — are its children), handing it the span to end with the response (`endMcpSpan`). Without
 * tracing the span records nothing and `handle` gets none: the request costs what it did.
 */
export function inMcpSpan<T>(message: JSONRPCRequest, headers: IncomingHttpHeaders, handle: (span: Span | undefined) => T): T {
  const span = startMcpSpan(message, headers);
  if (!span.isRecording()) return handle(undefined);
  return context.with(trace.setSpan(context.active(), span), () => handle(span));
}

/** Hands `message` to `handle` inside its span (see `inMcpSpan`), kept in `open()` until its response is sent. */
export function handleInMcpSpan(message: JSONRPCRequest, headers: IncomingHttpHeaders, open: () => Map<RequestId, Span>, handle: () => void): void {
  inMcpSpan(message, headers, (span) => {
    if (span !== undefined) open().set(message.id, span);
    handle();
  });
}

/** Ends a request's span with its response: a JSON-RPC error (its code) or a tool result with `isError` (`tool_error`) is an error. */
export function endMcpSpan(span: Span, response?: JSONRPCMessage): void {
  let errorType: string | undefined;
  if (response !== undefined && 'error' in response) errorType = String(response.error.code);
  else if (response !== undefined && 'result' in response && (response.result as { isError?: unknown }).isError === true) errorType = 'tool_error';
  if (errorType !== undefined) {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
