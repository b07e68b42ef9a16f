export * from './mcp.module.js';
export * from './mcp-errors.js';
export * from './session-tools.js';
export * from './external-tools.js';
