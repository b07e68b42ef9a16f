/** Network-level failures of a database connection (Node and pg driver error codes). */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);
/**
 * SQLSTATEs that say the server is going away, not answering, full, cancelled a statement at its
 * bound, or is a standby (25006: a failover routed the connection to a server still in recovery).
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25006']);
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  // pg's Client giving up on opening a connection (the pool's clients carry DB_CONNECT_TIMEOUT_MS themselves)
  /^timeout expired$/i,
  /query read timeout/i,
  /connection timeout/i,
  /client has encountered a connection error/i,
  /client was closed and is not queryable/i,
  /cannot use a pool after calling end/i,
  /database is unavailable/i,
];

export const DATABASE_UNAVAILABLE_MESSAGE = 'the database is unavailable; retry shortly';

/** Refused without trying: the process already knows the database cannot be reached. */
export class DatabaseUnavailableError extends Error {
  constructor() {
    super(DATABASE_UNAVAILABLE_MESSAGE);
    this.name = 'DatabaseUnavailableError';
  }
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  driverError?: unknown;
  cause?: unknown;
}

/**
 * Whether an error means "the database cannot be reached right now" (stopped, restarting, hung,
 * out of connections) rather than a fault of the request or of the code: such a request fails with
 * 503 and can be retried.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (depth > 3 || typeof error !== 'object' || error === null) return false;
  const { code, message, driverError, cause } = error as ErrorLike;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
