import type { ErrorCode } from './error-code.js';

/**
 * Base of every module's typed error. Each module declares a code enum and maps every code, with
 * exhaustive switches, to an HTTP status and to the public code every surface reports (ErrorCode).
 */
export abstract class DomainError<Code extends string = string> extends Error {
  protected constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  abstract get httpStatus(): number;

  /** The code REST bodies, GraphQL `extensions.code` and MCP tool errors carry. */
  abstract get publicCode(): ErrorCode;
}

// The one exhaustiveness helper lives in its own module (the browser bundle imports it too).
export { assertNever } from './assert-never.js';
