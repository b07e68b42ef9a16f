import type { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { DATABASE_UNAVAILABLE_MESSAGE, DomainError, ErrorCode, isDatabaseUnavailable } from '#common';

/** A tool argument that does not match the tool's published input schema. */
export class McpArgumentError extends DomainError<ErrorCode.ValidationError> {
  constructor(message: string) {
    super(ErrorCode.ValidationError, message);
  }

  get httpStatus(): number {
    return 400;
  }

  get publicCode(): ErrorCode {
    return ErrorCode.ValidationError;
  }
}

/** The code of a tool error: every module's typed errors carry their public code; undefined for anything else. */
export function mcpCodeOf(error: unknown): ErrorCode | undefined {
  return error instanceof DomainError ? error.publicCode : undefined;
}

export function toolResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

export function toolError(code: ErrorCode, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ code, message }) }] };
}

/** Where a tool failed, for the log line of an unexpected error. */
export interface ToolFailureContext {
  logger: Pick<Logger, 'error'>;
  requestId: string;
  tool: string;
}

/**
 * Typed errors become tool errors carrying their code and message. Anything else is a defect: it
 * is logged with the request id (the `x-request-id` the caller got) and answered INTERNAL_ERROR
 * without its details.
 */
export function toolErrorFrom(error: unknown, failure: ToolFailureContext): CallToolResult {
  const code = mcpCodeOf(error);
  if (code !== undefined) return toolError(code, (error as Error).message);
  if (isDatabaseUnavailable(error)) return toolError(ErrorCode.Unavailable, DATABASE_UNAVAILABLE_MESSAGE);
  failure.logger.error({
    msg: 'MCP tool failed',
    request_id: failure.requestId,
    tool: failure.tool,
    err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
  return toolError(ErrorCode.InternalError, `internal error (request id ${failure.requestId})`);
}
