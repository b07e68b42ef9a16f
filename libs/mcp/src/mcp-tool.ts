import type { Logger } from '@nestjs/common';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, RequestId, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every tool call of one HTTP request shares: who is calling, and how to log about it. */
export interface McpRequestContext {
  requestId: string;
  logger: Pick<Logger, 'error'>;
}

/**
 * The HTTP exchange a tool call came on, for a call that blocks for long (the session agent's ask):
 * once `detach`ed, the call is answered with `notify` and `respond` as the SDK's server would answer
 * it, and the server — with the call's promise chain — is let go while it waits (docs/benchmarks.md,
 * "Waiters"). `call.abort()` runs if the exchange closes first.
 */
export interface McpExchange {
  detach(requestId: RequestId, call: { abort(): void }): void;
  notify(requestId: RequestId, notification: ServerNotification): void;
  respond(requestId: RequestId, result: CallToolResult): void;
}

/**
 * What a detached call's handler returns: a promise nothing settles or holds, so the server's chain
 * awaiting it is garbage; the answer goes out through the exchange.
 */
export function answeredThroughExchange(): Promise<CallToolResult> {
  return new Promise(() => undefined);
}

/**
 * One MCP tool: its published contract (input and output schemas, annotations) and its handler.
 * `input` is both published (as JSON Schema) and enforced by the tool server, so the two never drift.
 */
export interface McpTool<Input = unknown> {
  name: string;
  title: string;
  description: string;
  input: z.ZodType<Input>;
  output: z.ZodType;
  annotations: ToolAnnotations;
  run(args: Input, extra: ToolExtra): Promise<CallToolResult>;
}

/** Keeps each tool's handler typed by its own input schema inside a heterogeneous list. */
export function defineTool<Input>(tool: McpTool<Input>): McpTool {
  return tool;
}
