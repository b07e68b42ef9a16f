export * from './mcp.module.js';
export * from './mcp-tool-result.js';
export * from './session-tools.js';
export * from './external-tools.js';
