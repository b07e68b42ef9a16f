import type { FastifyCorsOptions } from '@fastify/cors';

/**
 * CORS (@fastify/cors) for the origins of CORS_ORIGINS: browsers on those origins may call the API
 * with a bearer token. Credentials (the session cookie) are never sent cross-origin: the inbox is
 * same-origin, and cookie-authenticated writes from another origin are refused anyway (CSRF).
 */
export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  return {
    origin: origins.includes('*') ? '*' : [...origins],
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'x-request-id', 'traceparent', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy', 'www-authenticate', 'mcp-session-id'],
    maxAge: 600,
  };
}
