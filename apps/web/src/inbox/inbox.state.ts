import type { FeedState } from './question-feed.js';
import { assertNever, type Bundle, type Settlement } from './inbox.types.js';

export interface InboxState {
  /** "" = every workspace the caller may see. */
  workspaceId: string;
  /** Pending bundles, oldest first. */
  bundles: Bundle[];
  /** Bundles the feed brought since the list was last re-read from its start: a first page read meanwhile keeps them. */
  arrivals: Bundle[];
  nextCursor: string;
  loading: boolean;
  loadingMore: boolean;
  error: string;
  /** Bundles that stopped being answerable while this page was open, and how. */
  settled: Record<string, Settlement>;
  feed: FeedState;
  /** Changes whenever the list is re-read from its start; a page read for an older one is dropped. */
  generation: number;
}

export type InboxAction =
  | { type: 'filter'; workspaceId: string; generation: number }
  | { type: 'relist'; generation: number }
  | { type: 'loading-more' }
  | { type: 'listed'; generation: number; bundles: Bundle[]; nextCursor: string; append: boolean }
  | { type: 'list-failed'; generation: number; message: string }
  | { type: 'asked'; bundle: Bundle }
  | { type: 'settled'; pendingId: string; settlement: Settlement; source: 'feed' | 'respond' }
  | { type: 'feed'; state: FeedState };

export const initialInbox: InboxState = {
  workspaceId: '',
  bundles: [],
  arrivals: [],
  nextCursor: '',
  loading: true,
  loadingMore: false,
  error: '',
  settled: {},
  feed: 'connecting',
  generation: 0,
};

function oldestFirst(a: Bundle, b: Bundle): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.pendingId < b.pendingId ? -1 : a.pendingId > b.pendingId ? 1 : 0;
}

/** `existing` plus `incoming` (incoming wins per pending id), minus what is settled, oldest first. */
function merge(existing: Bundle[], incoming: Bundle[], settled: Record<string, Settlement>): Bundle[] {
  const byId = new Map(existing.map((bundle) => [bundle.pendingId, bundle]));
  for (const bundle of incoming) byId.set(bundle.pendingId, bundle);
  return [...byId.values()].filter((bundle) => !settled[bundle.pendingId]).sort(oldestFirst);
}

export function reduceInbox(state: InboxState, action: InboxAction): InboxState {
  switch (action.type) {
    case 'filter':
      return { ...state, workspaceId: action.workspaceId, bundles: [], arrivals: [], nextCursor: '', loading: true, error: '', generation: action.generation };
    case 'relist':
      return { ...state, arrivals: [], loading: true, error: '', generation: action.generation };
    case 'loading-more':
      return { ...state, loadingMore: true, error: '' };
    case 'listed':
      if (action.generation !== state.generation) return state;
      return {
        ...state,
        bundles: merge(action.append ? state.bundles : state.arrivals, action.bundles, state.settled),
        nextCursor: action.nextCursor,
        loading: false,
        loadingMore: false,
        error: '',
      };
    case 'list-failed':
      if (action.generation !== state.generation) return state;
      return { ...state, loading: false, loadingMore: false, error: action.message };
    case 'asked':
      return {
        ...state,
        bundles: merge(state.bundles, [action.bundle], state.settled),
        arrivals: merge(state.arrivals, [action.bundle], state.settled),
      };
    case 'settled': {
      // This page's own respond result is authoritative; the feed only reports what nobody here saw yet.
      if (action.source === 'feed' && state.settled[action.pendingId]) return state;
      const settled = { ...state.settled, [action.pendingId]: action.settlement };
      return { ...state, settled, bundles: state.bundles.filter((bundle) => bundle.pendingId !== action.pendingId) };
    }
    case 'feed':
      return { ...state, feed: action.state };
    default:
      return assertNever(action);
  }
}

export interface TaskGroup {
  taskId: string;
  bundles: Bundle[];
}

/** Bundles grouped by task, each group placed by its oldest bundle (the list is already oldest first). */
export function groupByTask(bundles: Bundle[]): TaskGroup[] {
  const groups = new Map<string, TaskGroup>();
  for (const bundle of bundles) {
    const group = groups.get(bundle.taskId) ?? { taskId: bundle.taskId, bundles: [] };
    group.bundles.push(bundle);
    groups.set(bundle.taskId, group);
  }
  return [...groups.values()];
}
