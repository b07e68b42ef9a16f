import type { ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import type { CallToolResult, JSONRPCMessage, RequestId, ServerNotification } from '@modelcontextprotocol/server';
import type { SecurityHeaders } from '#common';
import { endMcpSpan } from '../transport/mcp-spans.js';
import { answeredThroughExchange, type McpExchange, type ToolExtra } from '../mcp-tool.js';
import { encodedToolResponse } from './tool-result.encoder.js';

/** What a detached call's result is encoded as: the tool server it came from, the call's revision and tool. */
export interface ModernMcpCall {
  serverName: string;
  revision: string;
  tool: string;
}

/** As the SDK's per-request transport: a comment frame this often keeps idle proxies from cutting a long SSE call. */
const SSE_KEEP_ALIVE_MS = 15_000;

/**
 * Why the SDK's exchange is aborted: one reason for all. An abort without one makes a `DOMException`
 * per exchange, whose captured stack holds the frames' receivers — the SDK's `Server`, the web
 * `Request` — for as long as the aborted signal is held, the whole time a detached call blocks.
 */
const SDK_EXCHANGE_ENDED = new DOMException('the MCP exchange ended', 'AbortError');

/** An SSE comment frame, as the SDK's keep-alive writes it. */
function keepAlive(raw: ServerResponse): void {
  raw.write(': keepalive\n\n');
}

const sseFrame = (message: JSONRPCMessage): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** The JSON-RPC message a JSON body or an SSE `message` frame carries, if any. */
function messageIn(text: string, sse: boolean): JSONRPCMessage | undefined {
  const json = sse ? /^data: (.*)$/m.exec(text)?.[1] : text;
  try {
    const parsed: unknown = json === undefined ? undefined : JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One 2026-07-28 HTTP exchange on Node's response. The SDK's handler (createMcpHandler) answers it:
 * its `Response` is written to the raw response — a JSON body, or its SSE stream frame by frame. A
 * blocking call (the session agent's ask) `detach`es from the SDK once its wait is parked: the SDK's
 * exchange is then closed (its per-request `Server`, transport, web `Request` and streams are let go
 * while the call blocks, docs/benchmarks.md, "Waiters"), what its stream still held is written out,
 * and the call's progress notifications and result (encoded by the SDK, `encodedToolResponse`) are
 * written here as the SDK's transport frames them, on the same stream, with its keep-alive. The
 * client going away ends the SDK's exchange, or the detached call's wait (`call.abort()`).
 */
export class ModernMcpExchange implements McpExchange {
  /** The tools/call span, when tracing records: ended with the exchange's JSON-RPC response. */
  span?: Span;
  /** The SDK's exchange, until it ends: the client went away, or the call detached. */
  private sdk?: AbortController;
  /** The blocked call's SDK context, until it detaches. */
  private extra?: ToolExtra;
  /** A result given before the call detached, sent once it has. */
  private early?: CallToolResult;
  private detached?: { requestId: RequestId; call: { abort(): void } };
  /** While a detached call's result is encoded. */
  private answering = false;
  /** While the SDK's SSE stream is written: the detached call's frames wait for it to drain. */
  private draining?: string[];
  private keepAlive?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly raw: ServerResponse,
    private readonly headers: SecurityHeaders,
    /** The request's tools/call, when it is one (only such a call detaches). */
    private readonly call?: ModernMcpCall,
  ) {
    raw.on('close', () => this.close());
  }

  /** The signal the SDK's exchange ends with, for the web `Request` the SDK is handed (once per exchange). */
  sdkSignal(): AbortSignal {
    this.sdk = new AbortController();
    return this.sdk.signal;
  }

  /** This exchange, for the tool call `extra` is the SDK's context of (one call per 2026-07-28 request). */
  of(extra: ToolExtra): McpExchange {
    this.extra = extra;
    return this;
  }

  /**
   * Writes the SDK's response, with the security headers every response carries: a JSON body at
   * once, an SSE stream as its frames come (returns once its headers are out).
   */
  async write(response: Response): Promise<void> {
    if (this.closed) return;
    const sse = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
    this.raw.writeHead(response.status, { ...Object.fromEntries(this.headers), ...Object.fromEntries(response.headers) });
    if (response.body === null) {
      this.raw.end();
      this.endSpan(undefined);
    } else if (sse) {
      this.draining = [];
      void this.stream(response.body.getReader());
      this.releaseSdk();
    } else {
      const text = await response.text();
      this.raw.end(text);
      this.endSpan(messageIn(text, false));
    }
  }

  /**
   * The call `requestId` is answered here from now on (`notify`, `respond`): the SDK's exchange is
   * closed, so nothing of it stays referenced while the call blocks; `call.abort()` runs if the
   * client goes away first. Returns a promise nothing settles or holds (see McpExchange).
   */
  detach(requestId: RequestId, call: { abort(): void }): Promise<CallToolResult> {
    this.extra = undefined;
    if (this.closed) {
      call.abort();
      return answeredThroughExchange();
    }
    this.detached = { requestId, call };
    this.releaseSdk();
    const early = this.early;
    this.early = undefined;
    if (early !== undefined) this.respond(requestId, early);
    return answeredThroughExchange();
  }

  notify(_requestId: RequestId, notification: ServerNotification): void {
    // A notification that can no longer be written (the stream closed) is nobody's loss: the call ends with it.
    if (this.detached === undefined) this.extra?.mcpReq.notify(notification).catch(() => undefined);
    else this.send({ ...notification, jsonrpc: '2.0' });
  }

  /** A detached call's result, as the SDK answers a tools/call (a result it refuses is its JSON-RPC error). */
  respond(requestId: RequestId, result: CallToolResult): void {
    if (this.detached === undefined) {
      this.early = result;
      return;
    }
    this.detached = undefined;
    if (this.call === undefined) throw new Error('only a tools/call detaches');
    const { serverName, revision, tool } = this.call;
    this.answering = true;
    encodedToolResponse(serverName, revision, requestId, tool, result).then(
      (response) => this.answer(response),
      // Not encodable at all (the SDK answers any result it refuses): the stream ends unanswered.
      () => this.answer(undefined),
    );
  }

  private answer(response: JSONRPCMessage | undefined): void {
    this.answering = false;
    if (response !== undefined) this.send(response);
    if (this.draining === undefined && !this.closed) this.end(response);
  }

  /** Once the call detached and the SDK's response streams, the SDK's exchange ends (its stream drains first). */
  private releaseSdk(): void {
    if (this.detached !== undefined && this.draining !== undefined) this.endSdk();
  }

  /** The SDK's frames, then (the call detached) the detached call's, with the stream's keep-alive. */
  private async stream(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = this.span === undefined ? undefined : new TextDecoder();
    let last = '';
    try {
      for (let read = await reader.read(); !read.done && !this.closed; read = await reader.read()) {
        this.raw.write(read.value);
        if (decoder !== undefined) last = decoder.decode(read.value);
      }
    } catch {
      // The SDK's stream failed: the exchange ends as when it closes.
    }
    const frames = this.draining ?? [];
    this.draining = undefined;
    if (this.closed) return;
    for (const frame of frames) this.raw.write(frame);
    const answer = frames.length > 0 ? messageIn(frames[frames.length - 1] ?? '', true) : undefined;
    if (this.detached !== undefined) this.keepAlive = setInterval(keepAlive, SSE_KEEP_ALIVE_MS, this.raw).unref();
    else if (!this.answering) this.end(answer ?? messageIn(last, true));
  }

  /** Ends the SDK's exchange, and lets go of its (aborted) signal. */
  private endSdk(): void {
    this.sdk?.abort(SDK_EXCHANGE_ENDED);
    this.sdk = undefined;
  }

  private send(message: JSONRPCMessage): void {
    if (this.closed) return;
    const frame = sseFrame(message);
    if (this.draining === undefined) this.raw.write(frame);
    else this.draining.push(frame);
  }

  private end(response: JSONRPCMessage | undefined): void {
    clearInterval(this.keepAlive);
    this.raw.end();
    this.endSpan(response);
  }

  private endSpan(response: JSONRPCMessage | undefined): void {
    const span = this.span;
    this.span = undefined;
    if (span !== undefined) endMcpSpan(span, response);
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.endSdk();
    this.detached?.call.abort();
    this.detached = undefined;
    this.endSpan(undefined);
  }
}
