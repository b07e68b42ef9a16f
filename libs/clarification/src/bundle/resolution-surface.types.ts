import type { Caller } from '#authorization';
import type { ResolutionSurface } from '#common';
import { ClarificationError } from './clarification.errors.js';

export type { ResolutionSurface };

/** The header with which the inbox page says it is the page: heeded only while auth is disabled (no credential to tell it by). */
export const SURFACE_HEADER = 'x-parley-surface';

/**
 * The surface a REST respond is recorded (and its receipt signed) under, decided by the server: `web`
 * for a caller authenticated by a browser session's cookie, else `rest` — a header cannot make a
 * plain REST answer `web`. While auth is disabled every request is the same synthetic identity, so the
 * page's header is heeded there. A header other than `web` or `rest` is a 400.
 */
export function surfaceOfRequest(caller: Caller, header: string | undefined): Extract<ResolutionSurface, 'rest' | 'web'> {
  if (header !== undefined && header !== '' && header !== 'rest' && header !== 'web') {
    throw ClarificationError.validation(`${SURFACE_HEADER} must be "web" or "rest"`);
  }
  if (caller.kind === 'user') return caller.grant?.browserSessionId === undefined ? 'rest' : 'web';
  return caller.kind === 'synthetic' && header === 'web' ? 'web' : 'rest';
}
