import type { Logger } from '@nestjs/common';
import type { CallToolResult, RequestId, ServerContext, ServerNotification, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';

export type ToolExtra = ServerContext;

/** What every tool call of one HTTP request shares: who is calling, and how to log about it. */
export interface McpRequestContext {
  requestId: string;
  logger: Pick<Logger, 'error'>;
}

/**
 * The HTTP exchange a tool call came on, for a call that blocks for long (the session agent's ask):
 * once `detach`ed, the call is answered with `notify` and `respond`, and `call.abort()` runs if the
 * exchange closes first. `detach` returns what the tool's handler returns: on the 2025-11-25 leg
 * (FastifyMcpTransport) a promise nothing settles — the server, with the call's promise chain, is let
 * go while it waits (docs/benchmarks.md, "Waiters"); on the 2026-07-28 leg (ModernMcpExchange) the
 * same, the SDK's per-request exchange closed once its stream is out, the call answered on that stream.
 */
export interface McpExchange {
  detach(requestId: RequestId, call: { abort(): void }): Promise<CallToolResult>;
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
  /** Published in the tool's `_meta` (an MCP App's `ui` declaration). */
  meta?: Record<string, unknown>;
  run(args: Input, extra: ToolExtra): Promise<CallToolResult>;
}

/** Keeps each tool's handler typed by its own input schema inside a heterogeneous list. */
export function defineTool<Input>(tool: McpTool<Input>): McpTool {
  return tool;
}
