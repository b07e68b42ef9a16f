import { readFile } from 'node:fs/promises';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface ConstructorTotal {
  name: string;
  count: number;
  bytes: number;
}

/** Self size and count per constructor (objects, closures) or per node type (strings, code, arrays…). */
export async function summarizeSnapshot(file: string): Promise<Map<string, ConstructorTotal>> {
  const snapshot = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const totals = new Map<string, ConstructorTotal>();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]];
    const name = type === 'object' || type === 'closure' ? `${snapshot.strings[snapshot.nodes[i + nameAt]]}${type === 'closure' ? ' (closure)' : ''}` : `(${type})`;
    const total = totals.get(name) ?? { name, count: 0, bytes: 0 };
    total.count += 1;
    total.bytes += snapshot.nodes[i + sizeAt];
    totals.set(name, total);
  }
  return totals;
}

/** after − before per constructor, largest byte growth first. */
export function diffSnapshots(before: Map<string, ConstructorTotal>, after: Map<string, ConstructorTotal>): ConstructorTotal[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .map((name) => ({
      name,
      count: (after.get(name)?.count ?? 0) - (before.get(name)?.count ?? 0),
      bytes: (after.get(name)?.bytes ?? 0) - (before.get(name)?.bytes ?? 0),
    }))
    .sort((a, b) => b.bytes - a.bytes);
}
