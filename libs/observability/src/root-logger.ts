import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '#config';

/**
 * Fields that may hold a credential or what a person answered. Nothing logs them on purpose; this is
 * the net under that rule (a header object, a body, an error carrying its request).
 */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'token',
  'agent_token',
  'password',
  'custom_text',
  'reject_reason',
  'answers',
  '*.authorization',
  '*.cookie',
  '*.token',
  '*.agent_token',
  '*.password',
  '*.custom_text',
  '*.reject_reason',
  '*.answers',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * The one log format of the process: a JSON line per event with `level` as its name (`info`,
 * `fatal`, …), `time` (ISO 8601), `msg`, and — inside a request — `reqId` and `trace_id`.
 */
export function createRootLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Where start-up failures go: stderr, synchronously (the process exits right after), whatever LOG_LEVEL says. */
export function createFatalLogger(): Logger {
  return createRootLogger('fatal', pino.destination({ dest: 2, sync: true }));
}
