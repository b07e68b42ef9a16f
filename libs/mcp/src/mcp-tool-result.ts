import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ClarificationError, ClarificationErrorCode } from '../../clarification/src/index.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../common/src/index.js';

export enum McpErrorCode {
  NotFound = 'NOT_FOUND',
  ValidationError = 'VALIDATION_ERROR',
  Conflict = 'CONFLICT',
  /** The database is unreachable, or a winner's delivery is not settled yet: retry shortly. */
  Unavailable = 'UNAVAILABLE',
  InternalError = 'INTERNAL_ERROR',
}

/** The one mapping of clarification errors onto MCP tool-error codes. */
export function mcpCodeFor(code: ClarificationErrorCode): McpErrorCode {
  switch (code) {
    case ClarificationErrorCode.NotFound:
      return McpErrorCode.NotFound;
    case ClarificationErrorCode.Validation:
      return McpErrorCode.ValidationError;
    case ClarificationErrorCode.NotActive:
    case ClarificationErrorCode.SessionEnded:
    case ClarificationErrorCode.TaskArchived:
    case ClarificationErrorCode.WaitEnded:
      return McpErrorCode.Conflict;
    case ClarificationErrorCode.InProgress:
      return McpErrorCode.Unavailable;
    case ClarificationErrorCode.DeliveryFailed:
    case ClarificationErrorCode.Internal:
      return McpErrorCode.InternalError;
    default: {
      const unhandled: never = code;
      throw new Error(`unmapped clarification error code ${String(unhandled)}`);
    }
  }
}

export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

export function toolError(code: McpErrorCode, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ code, message }) }] };
}

/** Typed errors become tool errors carrying their code; anything else is an internal error. */
export function toolErrorFrom(error: unknown): CallToolResult {
  if (error instanceof ClarificationError) return toolError(mcpCodeFor(error.code), error.message);
  if (isDatabaseUnavailable(error)) return toolError(McpErrorCode.Unavailable, DATABASE_UNAVAILABLE_MESSAGE);
  return toolError(McpErrorCode.InternalError, 'internal error');
}
