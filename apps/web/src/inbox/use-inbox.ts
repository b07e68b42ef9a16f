import { useCallback, useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { SignedOutError } from '../http.js';
import { type Directory, fetchBundle, fetchDirectory, fetchPendingPage, isPending } from './inbox.api.js';
import { type InboxAction, type InboxState, initialInbox, reduceInbox } from './inbox.state.js';
import { assertNever, type QuestionEvent, type Settlement } from './inbox.types.js';
import { startQuestionFeed } from './question-feed.js';

export interface Inbox {
  state: InboxState;
  directory: Directory;
  dispatch: (action: InboxAction) => void;
  setWorkspace: (workspaceId: string) => void;
  loadMore: () => void;
}

function settlementOf(event: QuestionEvent): Settlement | undefined {
  switch (event.type) {
    case 'ANSWERED':
    case 'REJECTED':
      return {
        kind: 'resolved',
        status: event.type === 'ANSWERED' ? 'answered' : 'rejected',
        response: event.response ?? { answers: [], rejected: event.type === 'REJECTED', reject_reason: '' },
        by: 'elsewhere',
        resolvedBy: event.resolvedBy,
      };
    case 'CANCELLED':
    case 'EXPIRED':
    case 'SUPERSEDED':
      return { kind: 'closed', reason: event.type };
    case 'ASKED':
    case 'DETACHED':
    case 'REMINDED':
    case 'ESCALATED':
      return undefined;
    default:
      return assertNever(event.type);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The inbox's state: the pending list (filtered, paged) kept current by the live question feed. */
export function useInbox(onSignedOut: () => void): Inbox {
  const [state, dispatch] = useReducer(reduceInbox, initialInbox);
  const [directory, setDirectory] = useState<Directory>({ workspaces: [], tasks: [] });
  const current = useRef(state);
  current.current = state;
  const knownTasks = useRef(new Set<string>());
  const generations = useRef(0);
  const signedOut = useRef(onSignedOut);
  signedOut.current = onSignedOut;

  const failed = useCallback((error: unknown, generation: number) => {
    if (error instanceof SignedOutError) signedOut.current();
    else dispatch({ type: 'list-failed', generation, message: describe(error) });
  }, []);

  const refreshDirectory = useCallback(() => {
    fetchDirectory().then(
      (fresh) => {
        knownTasks.current = new Set(fresh.tasks.map((task) => task.id));
        setDirectory(fresh);
      },
      (error: unknown) => failed(error, current.current.generation),
    );
  }, [failed]);

  const listFromStart = useCallback(
    (workspaceId: string, generation: number) => {
      fetchPendingPage(workspaceId, '').then(
        (page) => dispatch({ type: 'listed', generation, bundles: page.bundles, nextCursor: page.nextCursor, append: false }),
        (error: unknown) => failed(error, generation),
      );
    },
    [failed],
  );

  const relist = useCallback(() => {
    const generation = ++generations.current;
    dispatch({ type: 'relist', generation });
    listFromStart(current.current.workspaceId, generation);
    refreshDirectory();
  }, [listFromStart, refreshDirectory]);

  const onEvent = useCallback(
    (event: QuestionEvent) => {
      const settlement = settlementOf(event);
      if (settlement) {
        dispatch({ type: 'settled', pendingId: event.pendingId, settlement, source: 'feed' });
        return;
      }
      // ASKED adds a bundle; ESCALATED changed who may answer one (read it again).
      if (event.type !== 'ASKED' && event.type !== 'ESCALATED') return;
      const { workspaceId } = current.current;
      if (workspaceId && event.workspaceId !== workspaceId) return;
      if (!knownTasks.current.has(event.taskId)) refreshDirectory();
      fetchBundle(event.pendingId).then(
        (bundle) => {
          if (bundle && isPending(bundle)) dispatch({ type: 'asked', bundle });
        },
        (error: unknown) => failed(error, current.current.generation),
      );
    },
    [failed, refreshDirectory],
  );

  useEffect(() => {
    relist();
    return startQuestionFeed({
      event: onEvent,
      state: (feed) => dispatch({ type: 'feed', state: feed }),
      resync: relist,
      signedOut: () => signedOut.current(),
    });
  }, [relist, onEvent]);

  const setWorkspace = useCallback(
    (workspaceId: string) => {
      const generation = ++generations.current;
      current.current = { ...current.current, workspaceId };
      dispatch({ type: 'filter', workspaceId, generation });
      listFromStart(workspaceId, generation);
    },
    [listFromStart],
  );

  const loadMore = useCallback(() => {
    const { workspaceId, nextCursor } = current.current;
    const generation = generations.current;
    if (!nextCursor) return;
    dispatch({ type: 'loading-more' });
    fetchPendingPage(workspaceId, nextCursor).then(
      (page) => dispatch({ type: 'listed', generation, bundles: page.bundles, nextCursor: page.nextCursor, append: true }),
      (error: unknown) => failed(error, generation),
    );
  }, [failed]);

  return { state, directory, dispatch, setWorkspace, loadMore };
}
