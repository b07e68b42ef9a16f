import { startTracing } from './tracing.js';

// Tracing first (when configured): its instrumentations patch http and pg as the server's modules load them.
await startTracing();
await import('./server.js');
