import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from './app.js';
import { eventually } from './eventually.js';

/** What a tool call came back as: the error flag, the structured result, and the raw text content. */
export interface ToolOutcome {
  isError: boolean;
  /** `structuredContent` (success), undefined on a tool error. */
  structured: Record<string, unknown> | undefined;
  /** The first text content block, verbatim: the raw JSON, for key-presence and `null` checks. */
  text: string;
}

export interface McpConnection {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolOutcome>;
  /** The text of a tool error parsed as `{code, message}`; throws when the call did not fail. */
  callError(name: string, args?: Record<string, unknown>): Promise<{ code: string; message: string; text: string }>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** `Authorization: Bearer <token>` on every request. */
  bearer?: string;
  /** Extra request headers (e.g. a `cookie`). */
  headers?: Record<string, string>;
  /** Defaults to `/mcp` (the external surface). */
  path?: string;
}

/** An MCP SDK client over Streamable HTTP on `${baseUrl}${path}` — the way a real external agent connects. */
export async function connectMcp(baseUrl: string, options: ConnectOptions = {}): Promise<McpConnection> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${options.path ?? '/mcp'}`), {
    requestInit: { headers },
  });
  await client.connect(transport);

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 });
    const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
    const text = content.find((block) => block.type === 'text')?.text ?? '';
    return {
      isError: result.isError === true,
      structured: result.structuredContent as Record<string, unknown> | undefined,
      text,
    };
  };

  return {
    client,
    call,
    async callError(name, args) {
      const outcome = await call(name, args);
      if (!outcome.isError) throw new Error(`${name} succeeded where an error was expected: ${outcome.text}`);
      const parsed = JSON.parse(outcome.text) as { code: string; message: string };
      return { code: parsed.code, message: parsed.message, text: outcome.text };
    },
    close: () => client.close(),
  };
}

/** What one raw JSON-RPC `tools/call` POST came back as: the HTTP status and the (first) JSON-RPC message. */
export interface RawMcpResponse {
  status: number;
  body: { result?: { isError?: boolean; content?: Array<{ text?: string }> }; error?: { code: number; message: string } } & Record<string, unknown>;
}

/**
 * A `tools/call` as one hand-made HTTP request (no initialize, as a stateless server allows), for
 * inputs an SDK client would refuse to send or that the server refuses before MCP sees them.
 */
export async function rawToolCall(baseUrl: string, path: string, bearer: string, name: string, args: unknown): Promise<RawMcpResponse> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('text/event-stream')
    ? (text.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '{}')
    : text;
  return { status: res.status, body: JSON.parse(json) as RawMcpResponse['body'] };
}

/** Sends raw JSON-RPC messages with the SDK's own transport (the SDK client sends one request at a time). */
export async function sendBatch(t: Pick<TestApp, 'baseUrl'>, messages: JSONRPCMessage[]): Promise<{ error?: StreamableHTTPError; responses: JSONRPCMessage[] }> {
  const responses: JSONRPCMessage[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`));
  transport.onmessage = (message) => responses.push(message);
  await transport.start();
  try {
    await transport.send(messages);
    await eventually(() => (responses.length >= messages.length ? true : undefined), 10_000, 'every response');
    return { responses };
  } catch (error) {
    if (error instanceof StreamableHTTPError) return { error, responses };
    throw error;
  } finally {
    await transport.close();
  }
}
