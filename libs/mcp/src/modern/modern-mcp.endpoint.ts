import { classifyInboundRequest, createMcpHandler, isJSONRPCRequest, type McpHttpHandler, type PerRequestResponseMode, type Server } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityHeadersOf } from '#common';
import { inMcpSpan } from '../transport/mcp-spans.js';
import type { McpExchange, ToolExtra } from '../mcp-tool.js';
import { type ModernMcpCall, ModernMcpExchange } from './modern-mcp.exchange.js';

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
 * unchanged. Each request gets a fresh server from the caller-specific builder it was served with
 * (the SDK's handler requires one per request).
 */
export class ModernMcpEndpoint {
  private readonly handler: McpHttpHandler;
  /** Each in-flight request's server builder: the SDK's factory gets the Request it was handed. */
  private readonly builders = new WeakMap<Request, () => Server>();

  constructor(
    responseMode: PerRequestResponseMode,
    /** The name its tool server announces, which a detached call's result is encoded with. */
    private readonly serverName: string,
  ) {
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
   * Serves the request on the raw response (hijacked, as the 2025 leg's is) through a
   * ModernMcpExchange: `serverFor` builds the request's server, its tools reaching that exchange
   * through `exchangeOf`. A JSON-RPC request is served inside its MCP span (`mcp-spans.ts`), ended
   * with its response.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, serverFor: (exchangeOf: (extra: ToolExtra) => McpExchange) => Server): Promise<void> {
    const exchange = new ModernMcpExchange(reply.raw, securityHeadersOf(request), this.callOf(request));
    reply.hijack();
    const web = webRequestOf(request, exchange.sdkSignal());
    this.builders.set(web, () => serverFor((extra) => exchange.of(extra)));
    const parsedBody: unknown = request.body;
    // Read: the hijacked request holds no copy of its arguments while a call blocks.
    request.body = undefined;
    const answer = () => this.handler.fetch(web, { parsedBody });
    const response = isJSONRPCRequest(parsedBody)
      ? await inMcpSpan(parsedBody, request.headers, (span) => {
          exchange.span = span;
          return answer();
        })
      : await answer();
    await exchange.write(response);
  }

  /** The tools/call the request is, as a detached call's result is encoded: its tool and revision (the header the SDK checks against its envelope). */
  private callOf(request: FastifyRequest): ModernMcpCall | undefined {
    const body = request.body as { method?: unknown; params?: { name?: unknown } } | undefined;
    const revision = request.headers['mcp-protocol-version'];
    const tool = body?.params?.name;
    if (body?.method !== 'tools/call' || typeof tool !== 'string' || typeof revision !== 'string') return undefined;
    return { serverName: this.serverName, revision, tool };
  }

  private serverOf(request: Request | undefined): Server {
    const build = request === undefined ? undefined : this.builders.get(request);
    if (build === undefined) throw new Error('an MCP request reached the SDK without its server');
    return build();
  }
}
