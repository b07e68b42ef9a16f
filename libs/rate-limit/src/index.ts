export * from './address-limits.hooks.js';
export * from './rate-limit.errors.js';
export * from './rate-limit.headers.js';
export * from './rate-limit.keys.js';
export * from './rate-limit.module.js';
export * from './rate-limit.policy.js';
export * from './rate-limit.service.js';
export * from './rate-limited.decorator.js';
