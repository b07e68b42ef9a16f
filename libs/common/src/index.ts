export * from './domain-error.js';
export * from './http-error.filter.js';
export * from './validation.pipe.js';
export * from './public.decorator.js';
export * from './keyset-cursor.js';
export * from './event-bus.js';
export * from './event-bus.module.js';
export * from './uniform-errors.adapter.js';
