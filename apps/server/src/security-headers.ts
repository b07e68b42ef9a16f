import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

type Directives = Record<string, string[]>;

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

function helmetOptions(directives: Directives): FastifyHelmetOptions {
  // No defaults: helmet's would add upgrade-insecure-requests, which breaks the page over plain http.
  return { contentSecurityPolicy: { useDefaults: false, directives } };
}

/**
 * Security headers with @fastify/helmet on every response (CSP, nosniff, frame and referrer
 * policies, …); the tool pages get their relaxed CSP through the route option @fastify/helmet reads.
 * Must be installed before any route is added.
 */
export async function registerSecurityHeaders(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRoute', (route) => {
    if (TOOL_PAGES.test(route.url)) route.helmet = helmetOptions(TOOL_PAGE_POLICY);
  });
  // Strict-Transport-Security is sent too: browsers ignore it over plain http (RFC 6797 §8.1).
  await fastify.register(fastifyHelmet, helmetOptions(CONTENT_SECURITY_POLICY));
}
