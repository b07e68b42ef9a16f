import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyRequest, onSendHookHandler } from 'fastify';
import helmet from 'helmet';

type Directives = Record<string, string[]>;

/** A response's security headers: lower-case name and value, computed once and shared by every response. */
export type SecurityHeaders = readonly (readonly [name: string, value: string])[];

/**
 * The one Content-Security-Policy of every response, the browser inbox at `/` included: everything
 * from this origin only (its script and stylesheet are hashed files of its own; its API calls and
 * the GraphQL WebSocket are same-origin), no inline script, no plugins, no framing.
 */
export const CONTENT_SECURITY_POLICY: Directives = {
  'default-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'style-src': ["'self'"],
  'script-src': ["'self'"],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The tool pages served from their packages — GraphiQL and Swagger UI — set styles inline (a
 * `<style>` element, style attributes) and use data: images: those two relax `style-src` and
 * `img-src` for their own paths only. Scripts stay `'self'` everywhere.
 */
const TOOL_PAGES = /^\/(graphiql|docs)(\/|$)/;
const TOOL_PAGE_POLICY: Directives = {
  ...CONTENT_SECURITY_POLICY,
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
};

/**
 * What helmet sets on a response — its vetted defaults plus this CSP — read once from a response that
 * is never sent. No CSP defaults: helmet's would add upgrade-insecure-requests, which breaks the page
 * over plain http. Strict-Transport-Security is sent too: browsers ignore it over plain http (RFC 6797 §8.1).
 */
function helmetHeaders(directives: Directives, crossOriginResourcePolicy: 'same-origin' | 'cross-origin' = 'same-origin'): SecurityHeaders {
  const request = new IncomingMessage(new Socket());
  const response = new ServerResponse(request);
  helmet({ contentSecurityPolicy: { useDefaults: false, directives }, crossOriginResourcePolicy: { policy: crossOriginResourcePolicy } })(request, response, (error) => {
    if (error) throw new Error('helmet refused the security header options', { cause: error });
  });
  return Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)] as const);
}

const DEFAULT_HEADERS = helmetHeaders(CONTENT_SECURITY_POLICY);
const TOOL_PAGE_HEADERS = helmetHeaders(TOOL_PAGE_POLICY);

/**
 * The question's MCP App script and stylesheet (dist/web/question-app, docs/api/mcp.md) are loaded by a
 * page an AI client frames on its own origin: they may be read cross-origin. Everything else stays
 * same-origin.
 */
const MCP_APP_ASSETS = /^\/question-app\//;
const MCP_APP_ASSET_HEADERS = helmetHeaders(CONTENT_SECURITY_POLICY, 'cross-origin');

/** The security headers of a response to this request (its route's pattern picks the CSP). */
export function securityHeadersOf(request: FastifyRequest): SecurityHeaders {
  const route = request.routeOptions.url ?? '';
  if (MCP_APP_ASSETS.test(route)) return MCP_APP_ASSET_HEADERS;
  return TOOL_PAGES.test(route) ? TOOL_PAGE_HEADERS : DEFAULT_HEADERS;
}

/**
 * Security headers on every response Fastify sends (an `onSend` hook), added as it is sent rather than
 * when the request arrives — so a long poll parked for minutes holds none of them (less memory per waiter);
 * a hijacked reply writes them itself (`securityHeadersOf`). A header the route set itself wins.
 */
export const securityHeadersHook: onSendHookHandler = (request, reply, payload, done) => {
  for (const [name, value] of securityHeadersOf(request)) if (!reply.hasHeader(name)) void reply.header(name, value);
  done(null, payload);
};
