import type { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AuthorizationError, AuthorizationErrorCode } from '../../authorization/src/index.js';
import { ClarificationError, ClarificationErrorCode } from '../../clarification/src/index.js';
import { assertNever, DATABASE_UNAVAILABLE_MESSAGE, DomainError, isDatabaseUnavailable } from '../../common/src/index.js';
import { TasksError, TasksErrorCode } from '../../tasks/src/index.js';

/** The codes a tool error carries (`{code, message}` as its text), documented in the README. */
export enum McpErrorCode {
  NotFound = 'NOT_FOUND',
  ValidationError = 'VALIDATION_ERROR',
  Conflict = 'CONFLICT',
  /** ask_user_question_kandev: the question's deadline passed unanswered — do not proceed as if it were answered. */
  Expired = 'EXPIRED',
  Unauthenticated = 'UNAUTHENTICATED',
  /** The database is unreachable, or a winner's delivery is not settled yet: retry shortly. */
  Unavailable = 'UNAVAILABLE',
  InternalError = 'INTERNAL_ERROR',
}

/** A tool argument that does not match the tool's published input schema. */
export class McpArgumentError extends DomainError<McpErrorCode.ValidationError> {
  constructor(message: string) {
    super(McpErrorCode.ValidationError, message);
  }

  get httpStatus(): number {
    return 400;
  }
}

function clarificationCode(code: ClarificationErrorCode): McpErrorCode {
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
    case ClarificationErrorCode.Expired:
      return McpErrorCode.Expired;
    case ClarificationErrorCode.InProgress:
      return McpErrorCode.Unavailable;
    case ClarificationErrorCode.DeliveryFailed:
    case ClarificationErrorCode.Internal:
      return McpErrorCode.InternalError;
    default:
      return assertNever(code);
  }
}

function tasksCode(code: TasksErrorCode): McpErrorCode {
  switch (code) {
    case TasksErrorCode.WorkspaceNotFound:
    case TasksErrorCode.TaskNotFound:
    case TasksErrorCode.SessionNotFound:
    case TasksErrorCode.TurnNotFound:
      return McpErrorCode.NotFound;
    case TasksErrorCode.TaskArchived:
    case TasksErrorCode.SessionEnded:
    case TasksErrorCode.InvalidStateTransition:
      return McpErrorCode.Conflict;
    case TasksErrorCode.InvalidArgument:
      return McpErrorCode.ValidationError;
    default:
      return assertNever(code);
  }
}

function authorizationCode(code: AuthorizationErrorCode): McpErrorCode {
  switch (code) {
    case AuthorizationErrorCode.Unauthenticated:
      return McpErrorCode.Unauthenticated;
    case AuthorizationErrorCode.NotFound:
      return McpErrorCode.NotFound;
    case AuthorizationErrorCode.InvalidArgument:
      return McpErrorCode.ValidationError;
    default:
      return assertNever(code);
  }
}

/** The one mapping of every module's typed errors onto MCP tool-error codes; undefined for anything else. */
export function mcpCodeOf(error: unknown): McpErrorCode | undefined {
  if (error instanceof McpArgumentError) return error.code;
  if (error instanceof ClarificationError) return clarificationCode(error.code);
  if (error instanceof TasksError) return tasksCode(error.code);
  if (error instanceof AuthorizationError) return authorizationCode(error.code);
  return undefined;
}

export function toolResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

export function toolError(code: McpErrorCode, message: string): CallToolResult {
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
  if (isDatabaseUnavailable(error)) return toolError(McpErrorCode.Unavailable, DATABASE_UNAVAILABLE_MESSAGE);
  failure.logger.error({
    msg: 'MCP tool failed',
    request_id: failure.requestId,
    tool: failure.tool,
    err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
  return toolError(McpErrorCode.InternalError, `internal error (request id ${failure.requestId})`);
}
