/**
 * Preloaded into a spawned server (`node --expose-gc --import …/heap-probe.js main.js`) by the
 * benchmarks, never by the application: answers IPC requests from the parent with the process's
 * heap after a full GC, or writes a heap snapshot. Inert without an IPC channel (no `process.send`).
 */
import { readFileSync } from 'node:fs';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

export type ProbeRequest = { op: 'heap' } | { op: 'snapshot'; path: string } | { op: 'collections' };
/** The answer to `collections`: HeapReading's count, read without collecting. */
export interface CollectionCount {
  ownMajorCollections: number;
}
export interface HeapReading {
  usedHeap: number;
  rss: number;
  external: number;
  arrayBuffers: number;
  /** Memory V8's heap spaces hold (`total_physical_size`): the used heap plus its free space and new-space capacity. */
  heapCommitted: number;
  /** Resident bytes of V8's 256 KiB page mappings (/proc/self/smaps): its spaces' pages and the freed pages it keeps pooled for reuse. */
  heapPagesResident: number;
  /** Full collections V8 ran of its own accord since the process started (this probe's forced ones not counted): allocation-driven ones and its memory reducer's. */
  ownMajorCollections: number;
}

/** V8 maps its regular heap pages one anonymous 256 KiB mapping each; their resident size, from /proc/self/smaps (0 elsewhere than Linux). */
const V8_PAGE_BYTES = 256 * 1024;
function heapPagesResident(): number {
  let smaps: string;
  try {
    smaps = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return 0;
  }
  let total = 0;
  let page = false;
  for (const line of smaps.split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(\S*)/.exec(line);
    if (mapping) page = !mapping[3] && parseInt(mapping[2], 16) - parseInt(mapping[1], 16) === V8_PAGE_BYTES;
    else if (page && line.startsWith('Rss:')) total += Number(/(\d+) kB/.exec(line)?.[1] ?? 0) * 1024;
  }
  return total;
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the probe needs node --expose-gc');
  gc();
  gc();
}

function isProbeRequest(message: { op: string }): message is ProbeRequest {
  return message.op === 'heap' || message.op === 'snapshot' || message.op === 'collections';
}

if (process.send) {
  let ownMajorCollections = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const { kind, flags } = (entry as PerformanceEntry & { detail: { kind: number; flags: number } }).detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR && (flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) === 0) ownMajorCollections += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('message', (request: { op: string }) => {
    // Other messages are the spawned program's own (the floor servers' `parked` / `release`).
    if (!isProbeRequest(request)) return;
    if (request.op === 'collections') {
      process.send?.({ ownMajorCollections } satisfies CollectionCount);
      return;
    }
    collect();
    if (request.op === 'snapshot') {
      process.send?.({ path: v8.writeHeapSnapshot(request.path) });
      return;
    }
    const memory = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    const reading: HeapReading = {
      usedHeap: heap.used_heap_size,
      rss: memory.rss,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      heapCommitted: heap.total_physical_size,
      heapPagesResident: heapPagesResident(),
      ownMajorCollections,
    };
    process.send?.(reading);
  });
  // The IPC channel must not keep the server alive on its own.
  process.channel?.unref();
}
