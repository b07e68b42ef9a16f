import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import {
  type CallToolResult,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCResultResponse,
  type MessageExtraInfo,
  type RequestId,
  type ServerNotification,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { SecurityHeaders } from '#common';
import { endMcpSpan, handleInMcpSpan } from './mcp-spans.js';
import { answeredThroughExchange, type McpExchange } from '../mcp-tool.js';

/**
 * How a response travels: `sse` keeps a stream open for as long as a tool runs (so progress can
 * flow) — the session agent's blocking ask; `json` answers with one JSON body, which costs less and
 * suits tools that never report progress.
 */
export type McpResponseMode = 'sse' | 'json';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

/** As the SDK's transport: a comment frame this often keeps idle proxies from cutting a long SSE call. */
const SSE_KEEP_ALIVE_MS = 15_000;

const isResponse = (message: JSONRPCMessage): message is JSONRPCResultResponse | JSONRPCErrorResponse => 'result' in message || 'error' in message;

/**
 * One stateless Streamable HTTP exchange on Node's response, for the SDK's `Server`: the messages of
 * one (already checked) POST go in, and the responses to its requests go out on the same HTTP
 * response — one JSON body, or an SSE stream ended once every request is answered — as the SDK's
 * StreamableHTTPServerTransport answers without sessions or an event store, minus its conversion to
 * web Request/Response and the per-request machinery of the stateful modes.
 */
export class FastifyMcpTransport implements Transport, McpExchange {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  /** The response to each request of the body, by id in the body's order; undefined while it runs. */
  private readonly responses = new Map<RequestId, JSONRPCMessage | undefined>();
  private unanswered = 0;
  /** The unanswered requests answered by their tool, not the server (see `detach`), each with what ends it. */
  private readonly detached = new Map<RequestId, { abort(): void }>();
  private closed = false;
  private keepAlive?: NodeJS.Timeout;
  /** The span of each request still running, when tracing records (created on the first). */
  private spans?: Map<RequestId, Span>;

  /**
   * `headers` (the security headers every response carries) go out with each response's own, in one
   * `writeHead`: nothing set before it, so the response holds no header map while a call blocks.
   */
  constructor(
    private readonly raw: ServerResponse,
    private readonly mode: McpResponseMode,
    private readonly headers: SecurityHeaders,
  ) {}

  async start(): Promise<void> {}

  /** Hands the messages to the server; without any request among them the POST is answered 202 at once. */
  serve(messages: readonly JSONRPCMessage[], headers: IncomingHttpHeaders): void {
    const extra: MessageExtraInfo = {};
    for (const message of messages) if ('method' in message && 'id' in message) this.responses.set(message.id, undefined);
    this.unanswered = this.responses.size;
    if (this.unanswered === 0) {
      for (const message of messages) this.onmessage?.(message, extra);
      this.raw.writeHead(202, this.headersWith({})).end();
      return;
    }
    if (this.mode === 'sse') {
      this.raw.writeHead(200, this.headersWith(SSE_HEADERS)).flushHeaders();
      this.keepAlive = setInterval(() => this.raw.write(': keepalive\n\n'), SSE_KEEP_ALIVE_MS).unref();
    }
    for (const message of messages) {
      if (isJSONRPCRequest(message)) handleInMcpSpan(message, headers, () => (this.spans ??= new Map<RequestId, Span>()), () => this.onmessage?.(message, extra));
      else this.onmessage?.(message, extra);
    }
  }

  /** Synchronous, as writes should be in the order sent; a throw rejects the promise, as an async send's would. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return new Promise((resolve) => {
      this.deliver(message, options);
      resolve();
    });
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      clearInterval(this.keepAlive);
      if (this.raw.headersSent && !this.raw.writableEnded) this.raw.end();
      this.onclose?.();
      for (const call of this.detached.values()) call.abort();
      this.detached.clear();
      for (const span of this.spans?.values() ?? []) endMcpSpan(span);
      this.spans = undefined;
    }
    return Promise.resolve();
  }

  /**
   * The call `requestId` is answered by its tool from now on (`notify`, `respond`), not by the
   * server; `call.abort()` runs if the exchange closes first (the client went away or cancelled).
   * Once every unanswered request is detached the server's hooks are dropped, so the per-request
   * server and the call's promise chain are garbage while it blocks (docs/benchmarks.md, "Waiters").
   */
  detach(requestId: RequestId, call: { abort(): void }): Promise<CallToolResult> {
    if (!this.closed && this.responses.has(requestId) && this.responses.get(requestId) === undefined) {
      this.detached.set(requestId, call);
      this.releaseServer();
    }
    return answeredThroughExchange();
  }

  /** A notification about a detached call, as the server's `sendNotification` sends it. */
  notify(requestId: RequestId, notification: ServerNotification): void {
    if (this.detached.has(requestId)) this.deliver({ ...notification, jsonrpc: '2.0' }, { relatedRequestId: requestId });
  }

  /** A detached call's result, as the server answers a tools/call: parsed by CallToolResultSchema (a mismatch throws), in its envelope. */
  respond(requestId: RequestId, result: CallToolResult): void {
    if (this.detached.has(requestId)) this.deliver({ result: CallToolResultSchema.parse(result), jsonrpc: '2.0', id: requestId });
  }

  /** With only detached calls left, nothing more comes from or goes to the server. */
  private releaseServer(): void {
    if (this.detached.size < this.unanswered) return;
    this.onmessage = undefined;
    this.onerror = undefined;
    this.onclose = undefined;
  }

  private deliver(message: JSONRPCMessage, options?: TransportSendOptions): void {
    if (this.closed) return;
    const response = isResponse(message);
    const requestId = response ? message.id : options?.relatedRequestId;
    // No standalone stream statelessly: what relates to no request of this body goes nowhere.
    if (requestId === undefined && !response) return;
    if (requestId === undefined || !this.responses.has(requestId)) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    if (this.mode === 'sse') this.raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (!response) return;
    if (this.responses.get(requestId) === undefined) this.unanswered -= 1;
    this.responses.set(requestId, message);
    this.endSpan(requestId, message);
    this.detached.delete(requestId);
    if (this.unanswered === 0) this.finish();
    else if (this.detached.size > 0) this.releaseServer();
  }

  private endSpan(requestId: RequestId, response: JSONRPCMessage): void {
    const span = this.spans?.get(requestId);
    if (span === undefined) return;
    this.spans?.delete(requestId);
    endMcpSpan(span, response);
  }

  private headersWith(own: OutgoingHttpHeaders): OutgoingHttpHeaders {
    return { ...Object.fromEntries(this.headers), ...own };
  }

  private finish(): void {
    if (this.mode === 'sse') {
      clearInterval(this.keepAlive);
      this.raw.end();
    } else {
      const answers = [...this.responses.values()];
      const body = JSON.stringify(answers.length === 1 ? answers[0] : answers);
      this.raw.writeHead(200, this.headersWith({ 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })).end(body);
    }
    this.responses.clear();
  }
}
