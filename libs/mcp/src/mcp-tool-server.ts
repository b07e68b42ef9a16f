// The low-level Server is deliberate (docs/api/mcp.md): McpServer validates arguments itself
// and answers a mismatch with its own `-32602 Input validation error` text, which the tools'
// contract forbids; here the same zod schema is published and enforced by our own handlers.
import { type CallToolResult, ProtocolError, ProtocolErrorCode, type ReadResourceResult, type Resource, ResourceNotFoundError, Server, type Tool } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { z } from 'zod';
import { parseArguments } from './mcp-arguments.js';
import { toolErrorFrom } from './mcp-errors.js';
import type { McpRequestContext, McpTool } from './mcp-tool.js';

/**
 * Every `type: [T, "null"]` (how zod writes a nullable field) as `anyOf` of single-type branches:
 * clients that map tool schemas onto a single-`type` dialect reject or drop the array form (the MCP
 * Inspector's --strict portability check warns on it).
 */
function singleTypeBranches(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypeBranches);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).map(([key, value]) => [key, singleTypeBranches(value)] as const);
  const { type, ...rest } = Object.fromEntries(entries) as Record<string, unknown>;
  return Array.isArray(type) ? { ...rest, anyOf: (type as unknown[]).map((branch) => ({ type: branch })) } : { ...rest, ...(type === undefined ? {} : { type }) };
}

/**
 * Tools are rebuilt per caller and request, their zod schemas are module constants: each schema is
 * converted once (the conversion was most of a tools/list's CPU). Weak, so a schema nobody holds goes.
 */
const published = { input: new WeakMap<z.ZodType, Tool['inputSchema']>(), output: new WeakMap<z.ZodType, Tool['inputSchema']>() };

/** JSON Schema as McpServer publishes it (draft-07), so clients see the conventional shape. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  let converted = published[io].get(schema);
  if (!converted) {
    converted = singleTypeBranches(z.toJSONSchema(schema, { target: 'draft-7', io })) as Tool['inputSchema'];
    published[io].set(schema, converted);
  }
  return converted;
}

function describeTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output'),
    annotations: tool.annotations,
    ...(tool.meta === undefined ? {} : { _meta: tool.meta }),
  };
}

/**
 * One validator for every per-request server: the SDK's default builds a new Ajv instance with each
 * `Server` (a twentieth of an MCP request's CPU), and it is only consulted for elicitation results.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** The version every tool server announces. */
export const TOOL_SERVER_VERSION = '1.0.0';

/** A resource the server offers: its listing and what reading it gives. */
export interface McpResource {
  listed: Resource;
  read: ReadResourceResult;
}

/**
 * An MCP server offering `tools` (and `resources`, when given): arguments are validated here, every
 * failure is a coded tool error.
 */
export function createToolServer(name: string, tools: readonly McpTool[], context: McpRequestContext, resources?: readonly McpResource[]): Server {
  const capabilities = resources === undefined ? { tools: {} } : { tools: {}, resources: {} };
  const server = new Server({ name, version: TOOL_SERVER_VERSION }, { capabilities, jsonSchemaValidator: SCHEMA_VALIDATOR });
  if (resources !== undefined) {
    server.setRequestHandler('resources/list', () => ({ resources: resources.map((resource) => resource.listed) }));
    server.setRequestHandler('resources/read', (request) => {
      const resource = resources.find((candidate) => candidate.listed.uri === request.params.uri);
      if (resource === undefined) throw new ResourceNotFoundError(request.params.uri);
      return resource.read;
    });
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler('tools/list', () => ({ tools: tools.map(describeTool) }));
  server.setRequestHandler('tools/call', async (request, extra) => {
    const tool = byName.get(request.params.name);
    // An unknown tool is a protocol error (MCP spec, "Error Handling"), not a tool result.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    try {
      return await tool.run(parseArguments(tool.input, request.params.arguments), extra);
    } catch (error) {
      return toolErrorFrom(error, { ...context, tool: tool.name });
    }
  });
  return server;
}

/**
 * A server whose every tools/call answers `result`, as `name`'s tool server would (its identity, the
 * shared validator): how a detached call's result is encoded by the SDK (`modern/tool-result.encoder.ts`).
 */
export function createResultServer(name: string, result: CallToolResult, supportedProtocolVersions: string[]): Server {
  const server = new Server({ name, version: TOOL_SERVER_VERSION }, { capabilities: { tools: {} }, jsonSchemaValidator: SCHEMA_VALIDATOR, supportedProtocolVersions });
  server.setRequestHandler('tools/call', () => result);
  return server;
}
