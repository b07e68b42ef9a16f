import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The protocol versions Parley serves on both MCP endpoints, by negotiation. */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** What a tool call came back as, with the v2 SDK client. */
export interface V2ToolOutcome {
  isError: boolean;
  structured: Record<string, unknown> | undefined;
  text: string;
  meta: Record<string, unknown> | undefined;
}

export interface V2Connection {
  client: Client;
  call(name: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: () => void }): Promise<V2ToolOutcome>;
  close(): Promise<void>;
}

/**
 * The MCP v2 SDK's own client on `${baseUrl}${path}`, pinned to `version`: 2026-07-28 (stateless:
 * `server/discover`, then every request carrying its `_meta` envelope) or 2025-11-25 (the plain
 * initialize handshake, the client's default).
 */
export async function connectMcpV2(baseUrl: string, version: ProtocolVersion, options: { bearer?: string; path?: string } = {}): Promise<V2Connection> {
  const headers: Record<string, string> = options.bearer === undefined ? {} : { authorization: `Bearer ${options.bearer}` };
  const client = new Client(
    { name: 'parley-test-v2', version: '1.0.0' },
    version === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : { versionNegotiation: { mode: 'legacy' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${options.path ?? '/mcp'}`), { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    async call(name, args = {}, callOptions = {}) {
      const result = await client.callTool(
        { name, arguments: args },
        { timeout: 60_000, resetTimeoutOnProgress: true, ...(callOptions.signal ? { signal: callOptions.signal } : {}), ...(callOptions.onprogress ? { onprogress: callOptions.onprogress } : {}) },
      );
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      return {
        isError: result.isError === true,
        structured: result.structuredContent as Record<string, unknown> | undefined,
        text: content.find((block) => block.type === 'text')?.text ?? '',
        meta: result._meta,
      };
    },
    close: () => client.close(),
  };
}
