/**
 * Base of every module's typed error. Each module declares a code enum and maps every code to an
 * HTTP status with an exhaustive switch, so the REST surface has one mapping per module.
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
}

// The one exhaustiveness helper lives in its own module (the browser bundle imports it too).
export { assertNever } from './assert-never.js';
