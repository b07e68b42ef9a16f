export * from './mcp.module.js';
export * from './mcp-errors.js';
export * from './session/session-tools.js';
export * from './external/external-tools.js';
