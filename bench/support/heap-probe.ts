/**
 * Preloaded into a spawned server (`node --expose-gc --import …/heap-probe.js main.js`) by the
 * benchmarks, never by the application: answers IPC requests from the parent with the process's
 * heap after a full GC, or writes a heap snapshot. Inert without an IPC channel (no `process.send`).
 */
import v8 from 'node:v8';

export type ProbeRequest = { op: 'heap' } | { op: 'snapshot'; path: string };
export interface HeapReading {
  usedHeap: number;
  rss: number;
  external: number;
  arrayBuffers: number;
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the probe needs node --expose-gc');
  gc();
  gc();
}

function isProbeRequest(message: { op: string }): message is ProbeRequest {
  return message.op === 'heap' || message.op === 'snapshot';
}

if (process.send) {
  process.on('message', (request: { op: string }) => {
    // Other messages are the spawned program's own (the floor servers' `parked` / `release`).
    if (!isProbeRequest(request)) return;
    collect();
    if (request.op === 'snapshot') {
      process.send?.({ path: v8.writeHeapSnapshot(request.path) });
      return;
    }
    const memory = process.memoryUsage();
    const reading: HeapReading = { usedHeap: v8.getHeapStatistics().used_heap_size, rss: memory.rss, external: memory.external, arrayBuffers: memory.arrayBuffers };
    process.send?.(reading);
  });
  // The IPC channel must not keep the server alive on its own.
  process.channel?.unref();
}
