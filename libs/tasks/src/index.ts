export * from './session-state.js';
export * from './session.repository.js';
export * from './session.service.js';
export * from './task.repository.js';
export * from './task.service.js';
export * from './tasks.errors.js';
export * from './tasks.module.js';
export * from './tasks.rows.js';
