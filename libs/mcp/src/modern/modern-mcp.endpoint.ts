import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { classifyInboundRequest, createMcpHandler, type McpHttpHandler, type PerRequestResponseMode, type Server } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityHeadersOf } from '#common';

/** The request as the SDK reads it: method, URL and headers (the body is handed over already parsed). */
function webRequestOf(request: FastifyRequest, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers, signal });
}

/**
 * The 2026-07-28 leg of an MCP endpoint: the SDK's own handler (createMcpHandler), strict
 * (`legacy: 'reject'`), so a per-request `_meta` envelope claim is answered — or refused — exactly
 * as the SDK answers it. Which leg a POST takes is the SDK's own classification (isLegacyRequest): a
 * 2025-11-25 client (no envelope claim: its initialize, its session's calls) stays on the 2025 leg
 * unchanged. Each request gets a fresh server from the caller-specific builder it was served with.
 */
export class ModernMcpEndpoint {
  private readonly handler: McpHttpHandler;
  /** Each in-flight request's server builder: the SDK's factory gets the Request it was handed. */
  private readonly builders = new WeakMap<Request, () => Server>();

  constructor(responseMode: PerRequestResponseMode) {
    this.handler = createMcpHandler(({ requestInfo }) => this.serverOf(requestInfo), { legacy: 'reject', responseMode });
  }

  /**
   * Whether this POST is 2026-07-28 traffic, by the SDK's own classification: an envelope claim
   * (or a modern MCP-Protocol-Version header), even a malformed one, whose refusal is the SDK's. A
   * body that is no JSON-RPC at all claims no era: the 2025 leg answers it, as it always has.
   */
  static claims(request: FastifyRequest): boolean {
    if (request.method !== 'POST' || request.body === undefined) return false;
    const header = (name: string): string | undefined => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const outcome = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header('mcp-protocol-version'),
      mcpMethodHeader: header('mcp-method'),
      mcpNameHeader: header('mcp-name'),
      body: request.body,
    });
    return outcome.kind === 'modern' || (outcome.kind === 'reject' && outcome.rung !== 'jsonrpc-shape');
  }

  /**
   * Serves the request on the raw response (hijacked, as the 2025 leg's is), with the security
   * headers every response carries; the client going away aborts the exchange (and a blocked call's wait).
   */
  async serve(request: FastifyRequest, reply: FastifyReply, serverFor: () => Server): Promise<void> {
    const gone = new AbortController();
    reply.hijack();
    reply.raw.on('close', () => gone.abort());
    const web = webRequestOf(request, gone.signal);
    this.builders.set(web, serverFor);
    const parsedBody: unknown = request.body;
    // Read: the hijacked request holds no copy of its arguments while a call blocks.
    request.body = undefined;
    const response = await this.handler.fetch(web, { parsedBody });
    if (reply.raw.destroyed) return;
    reply.raw.writeHead(response.status, { ...Object.fromEntries(securityHeadersOf(request)), ...Object.fromEntries(response.headers) });
    if (response.body === null) reply.raw.end();
    else Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>).pipe(reply.raw);
  }

  private serverOf(request: Request | undefined): Server {
    const build = request === undefined ? undefined : this.builders.get(request);
    if (build === undefined) throw new Error('an MCP request reached the SDK without its server');
    return build();
  }
}
