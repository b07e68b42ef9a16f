import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '#config';

/**
 * The origin people's AI clients load the question app's script and style from: PUBLIC_URL's when
 * set, else the one this request came to (its Host passed the DNS-rebinding check before any MCP
 * request is served, docs/security.md).
 */
export function publicOrigin(config: Pick<AppConfig, 'publicUrl'>, request: FastifyRequest): string {
  if (config.publicUrl !== undefined) return new URL(config.publicUrl).origin;
  return `${request.protocol}://${request.host}`;
}
