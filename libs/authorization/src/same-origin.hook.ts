import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { RequestBoundaryError, RequestBoundaryErrorCode, STATE_CHANGING_METHODS } from '#common';
import { sessionCookie } from './request-caller.js';

type Provenance = 'same-origin' | 'cross-origin' | 'unknown';

interface OriginHeaders {
  origin?: string;
  host?: string;
  'sec-fetch-site'?: string | string[];
}

/**
 * Where a request comes from, by what a browser says: its Origin (matched against PUBLIC_URL's
 * origin or the request's Host), else `Sec-Fetch-Site`. A client that says nothing is not a browser
 * page of another site — unless it presents the browser's cookie.
 */
export function provenanceOf(headers: OriginHeaders, publicOrigin: string | undefined): Provenance {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (origin === publicOrigin) return 'same-origin';
    try {
      return new URL(origin).host === headers.host ? 'same-origin' : 'cross-origin';
    } catch {
      return 'cross-origin'; // "null" (sandboxed, privacy-redirected) and garbage alike
    }
  }
  const fetchSite = headers['sec-fetch-site'];
  if (fetchSite === 'same-origin') return 'same-origin';
  if (fetchSite === 'same-site' || fetchSite === 'cross-site') return 'cross-origin';
  return 'unknown';
}

/**
 * CSRF: a state-changing request that is not bearer-authenticated is refused (403) when a browser
 * says it comes from another origin, and — when the session cookie would authenticate it — unless a
 * browser says it comes from this one. Bearer requests are never sent by a browser on its own.
 * This also covers sign-in (login CSRF): a cross-origin POST /api/v1/auth/session is refused.
 */
export function sameOriginHook(publicUrl: string | undefined) {
  const publicOrigin = publicUrl === undefined ? undefined : new URL(publicUrl).origin;
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (!STATE_CHANGING_METHODS.has(request.method) || request.headers.authorization !== undefined) return done();
    const provenance = provenanceOf(request.headers, publicOrigin);
    if (provenance === 'cross-origin') {
      return done(new RequestBoundaryError(RequestBoundaryErrorCode.CrossOrigin, 'cross-origin request refused: its Origin is not this server'));
    }
    if (provenance === 'unknown' && sessionCookie(request) !== undefined) {
      return done(
        new RequestBoundaryError(
          RequestBoundaryErrorCode.CrossOrigin,
          'a request authenticated by the session cookie must carry this server\'s Origin (or Sec-Fetch-Site: same-origin)',
        ),
      );
    }
    done();
  };
}
