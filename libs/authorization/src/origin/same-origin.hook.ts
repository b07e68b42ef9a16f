import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { isWebSocketUpgrade, RequestBoundaryError, RequestBoundaryErrorCode, STATE_CHANGING_METHODS } from '#common';
import type { RequestHosts } from './request-hosts.js';
import { sessionCookie } from '../caller/request-caller.js';

/** A `Host` outside the served names: refused before any route, guard or body parser runs. */
export function hostCheckHook(hosts: RequestHosts) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    // Liveness probes reach a replica by whatever address the orchestrator uses; it reveals nothing.
    if (hosts.isServed(request.headers.host) || request.url === '/healthz') return done();
    const shown = JSON.stringify((request.headers.host ?? '').slice(0, 100));
    done(
      new RequestBoundaryError(
        RequestBoundaryErrorCode.HostNotAllowed,
        `Host ${shown} is not served here: use a loopback address, PUBLIC_URL's host, or a name listed in ALLOWED_HOSTS`,
      ),
    );
  };
}

const crossOrigin = () => new RequestBoundaryError(RequestBoundaryErrorCode.CrossOrigin, 'cross-origin request refused: its Origin is not this server');

/**
 * CSRF and cross-site WebSocket hijacking: a state-changing request (or a WebSocket upgrade, which no
 * CORS preflight guards) whose browser `Origin` is not an allowed origin is refused (403), whatever
 * credential it carries. Without an Origin, `Sec-Fetch-Site` decides for a request the session cookie
 * would authenticate, and one that says neither is refused: the cookie alone is not enough. A bearer
 * request without an Origin is no browser page's doing. This covers sign-in too (login CSRF).
 */
export function sameOriginHook(hosts: RequestHosts) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const upgrade = isWebSocketUpgrade(request);
    if (!STATE_CHANGING_METHODS.has(request.method) && !upgrade) return done();
    const { origin, host, authorization } = request.headers;
    const cookieAuthenticated = authorization === undefined && sessionCookie(request) !== undefined;
    if (origin !== undefined) {
      if (hosts.isAllowedOrigin(origin, host, cookieAuthenticated)) return done();
      return done(crossOrigin());
    }
    // Every browser sends an Origin on a WebSocket upgrade: one without it is no page's doing.
    if (authorization !== undefined || upgrade) return done();
    const fetchSite = request.headers['sec-fetch-site'];
    if (fetchSite === 'same-site' || fetchSite === 'cross-site') return done(crossOrigin());
    if (fetchSite !== 'same-origin' && cookieAuthenticated) {
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
