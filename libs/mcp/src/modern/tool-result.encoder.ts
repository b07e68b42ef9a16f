import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  type JSONRPCMessage,
  PerRequestHTTPServerTransport,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
} from '@modelcontextprotocol/server';
import { createResultServer, TOOL_SERVER_VERSION } from '../mcp-tool-server.js';

/** Who asks the one-shot server below: nobody's client, so it declares nothing. */
const ENCODER_CLIENT = { name: 'parley-detached-call', version: TOOL_SERVER_VERSION };

/**
 * A detached call's result as the SDK answers a tools/call at `revision` — encoded by the SDK's own
 * codec (its `resultType`, the server's identity in `_meta`), not copied here: a one-shot server of
 * the same name, whose tools/call handler returns `result`, answers a tools/call with the call's id
 * on the SDK's per-request transport. Run once, when the answer comes; nothing of it is kept while
 * the call blocks.
 */
export async function encodedToolResponse(serverName: string, revision: string, requestId: RequestId, tool: string, result: CallToolResult): Promise<JSONRPCMessage> {
  const request = {
    jsonrpc: '2.0' as const,
    id: requestId,
    method: 'tools/call',
    params: { name: tool, _meta: { [PROTOCOL_VERSION_META_KEY]: revision, [CLIENT_INFO_META_KEY]: ENCODER_CLIENT, [CLIENT_CAPABILITIES_META_KEY]: {} } },
  };
  const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: revision, mcpMethodHeader: request.method, mcpNameHeader: tool, body: request });
  if (outcome.kind !== 'modern') throw new Error(`a detached call's result cannot be encoded at ${revision}`);
  const server = createResultServer(serverName, result, [revision]);
  const transport = new PerRequestHTTPServerTransport({ classification: outcome.classification, responseMode: 'json' });
  await server.connect(transport);
  const response = await transport.handleMessage(request);
  return (await response.json()) as JSONRPCMessage;
}
