import { assertNever, DomainError } from '../errors/domain-error.js';
import { ErrorCode } from '../errors/error-code.js';

export enum RequestBoundaryErrorCode {
  /** A body that is not JSON, empty, not UTF-8 or has a forbidden field name; a URL that cannot be decoded. */
  Malformed = 'MALFORMED',
  /** Too deep, too many items or fields, a string too long. */
  BodyTooComplex = 'BODY_TOO_COMPLEX',
  /** NUL or a lone surrogate anywhere in the input. */
  UnstorableText = 'UNSTORABLE_TEXT',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  /** A cookie-authenticated (or cross-site) state-changing request from another origin. */
  CrossOrigin = 'CROSS_ORIGIN',
  /** A `Host` header naming no host this server serves (DNS rebinding). */
  HostNotAllowed = 'HOST_NOT_ALLOWED',
}

/** The surfaces that answer errors in their own shape. */
export type Surface = 'rest' | 'graphql' | 'mcp';

/** Which surface a request URL belongs to. */
export function surfaceOf(url: string): Surface {
  const path = url.split('?', 1)[0] ?? '';
  if (path === '/graphql' || path.startsWith('/graphql/')) return 'graphql';
  if (path === '/mcp' || path.startsWith('/mcp/')) return 'mcp';
  return 'rest';
}

/** JSON-RPC 2.0 error codes for what the HTTP boundary refuses before MCP sees a message. */
const JSON_RPC_PARSE_ERROR = -32700;
const JSON_RPC_INVALID_PARAMS = -32602;
const JSON_RPC_SERVER_ERROR = -32000;

/**
 * What the HTTP boundary refuses before any route runs (body parsing, media type, origin, params).
 * `statusCode` and `extensions` let Fastify and the GraphQL route answer it as a client error with
 * its GraphQL code, like Mercurius's own errors.
 */
export class RequestBoundaryError extends DomainError<RequestBoundaryErrorCode> {
  constructor(code: RequestBoundaryErrorCode, message: string) {
    super(code, message);
  }

  get httpStatus(): number {
    switch (this.code) {
      case RequestBoundaryErrorCode.Malformed:
      case RequestBoundaryErrorCode.BodyTooComplex:
      case RequestBoundaryErrorCode.UnstorableText:
        return 400;
      case RequestBoundaryErrorCode.UnsupportedMediaType:
        return 415;
      case RequestBoundaryErrorCode.CrossOrigin:
      case RequestBoundaryErrorCode.HostNotAllowed:
        return 403;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case RequestBoundaryErrorCode.Malformed:
      case RequestBoundaryErrorCode.BodyTooComplex:
      case RequestBoundaryErrorCode.UnstorableText:
        return ErrorCode.ValidationError;
      case RequestBoundaryErrorCode.UnsupportedMediaType:
        return ErrorCode.UnsupportedMediaType;
      case RequestBoundaryErrorCode.CrossOrigin:
      case RequestBoundaryErrorCode.HostNotAllowed:
        return ErrorCode.Forbidden;
      default:
        return assertNever(this.code);
    }
  }

  get statusCode(): number {
    return this.httpStatus;
  }

  get extensions(): { code: string } {
    return { code: this.publicCode };
  }

  private get jsonRpcCode(): number {
    switch (this.code) {
      case RequestBoundaryErrorCode.Malformed:
        return JSON_RPC_PARSE_ERROR;
      case RequestBoundaryErrorCode.BodyTooComplex:
      case RequestBoundaryErrorCode.UnstorableText:
        return JSON_RPC_INVALID_PARAMS;
      case RequestBoundaryErrorCode.UnsupportedMediaType:
      case RequestBoundaryErrorCode.CrossOrigin:
      case RequestBoundaryErrorCode.HostNotAllowed:
        return JSON_RPC_SERVER_ERROR;
      default:
        return assertNever(this.code);
    }
  }

  /** The body each surface answers this error with (REST `{error}`, GraphQL errors, a JSON-RPC error). */
  bodyFor(surface: Surface): unknown {
    switch (surface) {
      case 'rest':
        return { error: this.message, code: this.publicCode };
      case 'graphql':
        return { data: null, errors: [{ message: this.message, extensions: this.extensions }] };
      case 'mcp':
        return { jsonrpc: '2.0', error: { code: this.jsonRpcCode, message: this.message }, id: null };
      default:
        return assertNever(surface);
    }
  }
}
