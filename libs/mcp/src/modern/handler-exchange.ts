import type { CallToolResult, RequestId, ServerNotification } from '@modelcontextprotocol/server';
import type { McpExchange, ToolExtra } from '../mcp-tool.js';

/**
 * A blocked call's exchange on the 2026-07-28 leg: the SDK's per-request transport sends the
 * handler's own result, so `detach` hands the handler a promise that `respond` settles; the call's
 * signal (the client went away, or the replica's handler closed) ends the wait as the 2025 leg's
 * closing transport does. An answer that comes before `detach` is kept for it.
 */
export class HandlerExchange implements McpExchange {
  private settle?: (result: CallToolResult) => void;
  private early?: CallToolResult;

  constructor(private readonly extra: ToolExtra) {}

  detach(_requestId: RequestId, call: { abort(): void }): Promise<CallToolResult> {
    const { signal } = this.extra.mcpReq;
    if (signal.aborted) call.abort();
    else signal.addEventListener('abort', () => call.abort(), { once: true });
    if (this.early !== undefined) return Promise.resolve(this.early);
    return new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  notify(_requestId: RequestId, notification: ServerNotification): void {
    // A notification that can no longer be written (the stream closed) is nobody's loss: the call ends with it.
    this.extra.mcpReq.notify(notification).catch(() => undefined);
  }

  respond(_requestId: RequestId, result: CallToolResult): void {
    if (this.settle === undefined) this.early = result;
    else this.settle(result);
  }
}
