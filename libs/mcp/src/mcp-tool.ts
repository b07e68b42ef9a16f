import type { Logger } from '@nestjs/common';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every tool call of one HTTP request shares: who is calling, and how to log about it. */
export interface McpRequestContext {
  requestId: string;
  logger: Pick<Logger, 'error'>;
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
