import { readFile } from 'node:fs/promises';

interface FullSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface RetainerStep {
  /** `Retainer.edge → Object`, e.g. `ServerResponse.<symbol kOutHeaders> → Object`. */
  step: string;
  /** Self size of the new objects at or below this step of their first-retainer chain. */
  bytes: number;
}

async function load(file: string): Promise<FullSnapshot> {
  return JSON.parse(await readFile(file, 'utf8')) as FullSnapshot;
}

/**
 * Which objects hold the growth between two snapshots of one process: every object of `after` whose
 * id is not in `before` is charged, with its self size, to each step of its chain of first retainers
 * (a new retainer preferred; weak and shortcut edges skipped) up to the first old object. A step's
 * bytes are the subtree it holds, so steps nest: read them as "what would go with this edge".
 */
export async function retainerSteps(beforeFile: string, afterFile: string): Promise<RetainerStep[]> {
  const before = await load(beforeFile);
  const beforeWidth = before.snapshot.meta.node_fields.length;
  const beforeId = before.snapshot.meta.node_fields.indexOf('id');
  const oldIds = new Set<number>();
  for (let i = 0; i < before.nodes.length; i += beforeWidth) oldIds.add(before.nodes[i + beforeId]);

  const { snapshot, nodes, edges, strings } = await load(afterFile);
  const { node_fields: nodeFields, edge_fields: edgeFields } = snapshot.meta;
  const nodeTypes = snapshot.meta.node_types[0];
  const edgeTypes = snapshot.meta.edge_types[0];
  const width = nodeFields.length;
  const edgeWidth = edgeFields.length;
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((field) => nodeFields.indexOf(field));
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((field) => edgeFields.indexOf(field));
  const count = nodes.length / width;

  const isNew = new Uint8Array(count);
  for (let n = 0; n < count; n++) isNew[n] = oldIds.has(nodes[n * width + idAt]) ? 0 : 1;
  const retainer = new Int32Array(count).fill(-1);
  const retainerEdge = new Int32Array(count).fill(-1);
  for (let n = 0, e = 0; n < count; n++) {
    const edgeCount = nodes[n * width + edgeCountAt];
    for (let k = 0; k < edgeCount; k++, e += edgeWidth) {
      const type = edgeTypes[edges[e + edgeTypeAt]];
      if (type === 'weak' || type === 'shortcut') continue;
      const to = edges[e + toAt] / width;
      const current = retainer[to];
      if (current === -1 || (!isNew[current] && isNew[n])) {
        retainer[to] = n;
        retainerEdge[to] = e;
      }
    }
  }

  const label = (n: number): string => {
    const type = nodeTypes[nodes[n * width + typeAt]];
    const name = strings[nodes[n * width + nameAt]];
    if (type === 'object') return name;
    if (type === 'closure') return `${name}()`;
    return type === 'hidden' || type === 'synthetic' ? `(${type} ${name.slice(0, 30)})` : `(${type})`;
  };
  const edgeLabel = (e: number): string => {
    const type = edgeTypes[edges[e + edgeTypeAt]];
    return type === 'element' || type === 'hidden' ? `[${type}]` : `.${String(strings[edges[e + edgeNameAt]]).slice(0, 40)}`;
  };

  const steps = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    if (!isNew[n]) continue;
    const size = nodes[n * width + sizeAt];
    const charged = new Set<string>();
    // First retainers can form a cycle among new objects: stop at an object already walked.
    const walked = new Set<number>();
    for (let at = n; retainer[at] !== -1 && isNew[retainer[at]] && !walked.has(at); at = retainer[at]) {
      walked.add(at);
      const step = `${label(retainer[at])}${edgeLabel(retainerEdge[at])} → ${label(at)}`;
      if (charged.has(step)) continue;
      charged.add(step);
      steps.set(step, (steps.get(step) ?? 0) + size);
    }
  }
  return [...steps].map(([step, bytes]) => ({ step, bytes })).sort((a, b) => b.bytes - a.bytes);
}
