import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ErrorCode } from '../errors/error-code.js';

/** The body of every REST error (the OpenAPI schema of `{error, code}`; see http-error.filter.ts). */
export class ErrorBodyDto {
  @ApiProperty({ description: 'What went wrong; for bad input it names the field', example: 'session_id should not be empty' })
  error!: string;

  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode', description: 'The same code GraphQL puts in extensions.code and MCP in its tool errors' })
  code!: ErrorCode;

  @ApiPropertyOptional({ description: 'The x-request-id of the request, on 500 and 503 (quote it when reporting)' })
  request_id?: string;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: the message names the field; nothing was changed',
  401: 'No valid credential (auth enabled); `WWW-Authenticate: Bearer`',
  403: 'A cookie-authenticated write from another origin (CSRF)',
  404: 'Not found — or not yours: a denial looks exactly like a missing id',
  409: 'Conflict with the current state',
  413: 'The body is larger than BODY_LIMIT_BYTES',
  415: 'The body is not application/json',
  429: 'Rate limit exceeded; `Retry-After` says when to retry',
  500: 'Internal error (the body carries the request id)',
  503: 'The database is unavailable, or an outcome is not settled yet; retry shortly (`Retry-After`)',
  504: 'The wait ended without an answer',
};

/** The error responses a route may answer, each with the `{error, code}` body. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) => ApiResponse({ status, description: ERROR_DESCRIPTIONS[status] ?? 'Error', type: ErrorBodyDto })),
  );
}

/** A route with a JSON body: it may be refused as invalid, too large or not JSON. */
export const ApiJsonBody = (): MethodDecorator & ClassDecorator => ApiErrors(400, 413, 415);

/**
 * The routes of a controller that resolve their caller (bearer token or the session cookie; with
 * AUTH_MODE=disabled everyone is the unscoped synthetic identity): 401 without a credential, and
 * the errors every route may meet (the database unavailable, an internal error).
 */
export const ApiCaller = (): ClassDecorator => applyDecorators(ApiBearerAuth('bearer'), ApiCookieAuth('cookie'), ApiErrors(401, 500, 503));

/** Routes anyone may call (no credential): only the errors every route may meet. */
export const ApiPublic = (): ClassDecorator => ApiErrors(500, 503);

const closedSchemas = new Set<string>();

/**
 * A schema whose object refuses fields it does not name (a service checks it, as the ValidationPipe
 * checks a body DTO): the document says so with `additionalProperties: false`.
 */
export function ApiClosedSchema(): ClassDecorator {
  return (target) => {
    closedSchemas.add(target.name);
  };
}

/** The schemas marked with ApiClosedSchema, by name. */
export function closedSchemaNames(): ReadonlySet<string> {
  return closedSchemas;
}
