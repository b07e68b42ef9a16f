export * from './root-logger.js';
export * from './trace-context.js';
export * from './http-logging.js';
export * from './logging.module.js';
export * from './metrics.service.js';
export * from './metrics.module.js';
export * from './metrics.controller.js';
export * from './tracer.js';
