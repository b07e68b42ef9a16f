import { useEffect, useRef } from 'preact/hooks';
import type { Directory } from './inbox.api.js';
import { groupByTask, type InboxState } from './inbox.state.js';
import { assignedLine, type Bundle } from './inbox.types.js';

interface Props {
  state: InboxState;
  directory: Directory;
  setWorkspace: (workspaceId: string) => void;
  loadMore: () => void;
}

function askedAt(createdAt: string): string {
  return new Date(createdAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function BundleCard({ bundle }: { bundle: Bundle }) {
  const [first] = bundle.questions;
  const more = bundle.questions.length - 1;
  return (
    <li class="card">
      <a class="card__link" href={`#/q/${encodeURIComponent(bundle.pendingId)}`}>
        <span class="card__title">{first?.title || first?.prompt || 'Question'}</span>
        {first?.title && <span class="card__prompt">{first.prompt}</span>}
      </a>
      <span class="card__meta">
        {more > 0 ? `${bundle.questions.length} questions · ` : ''}asked <time dateTime={bundle.createdAt}>{askedAt(bundle.createdAt)}</time>
        {bundle.routing && ` · ${assignedLine(bundle.routing)}`}
      </span>
    </li>
  );
}

export function InboxView({ state, directory, setWorkspace, loadMore }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const titles = new Map(directory.tasks.map((task) => [task.id, task]));
  const workspaceNames = new Map(directory.workspaces.map((workspace) => [workspace.id, workspace.name]));
  const groups = groupByTask(state.bundles);

  return (
    <section aria-labelledby="inbox-heading">
      <div class="inbox__bar">
        <h1 id="inbox-heading" ref={heading} tabIndex={-1}>
          Waiting for you
        </h1>
        <label class="filter">
          <span>Workspace</span>
          <select value={state.workspaceId} onChange={(event) => setWorkspace(event.currentTarget.value)}>
            <option value="">All workspaces</option>
            {directory.workspaces.map((workspace) => (
              <option key={workspace.id} value={workspace.id}>
                {workspace.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {state.error && (
        <p class="notice notice--error" role="alert">
          {state.error}
        </p>
      )}
      <div aria-live="polite" aria-busy={state.loading}>
        {state.loading && state.bundles.length === 0 && <p>Loading…</p>}
        {!state.loading && groups.length === 0 && !state.error && <p class="empty">Nothing is waiting for you.</p>}
        {groups.map((group) => {
          const task = titles.get(group.taskId);
          const workspace = task ? workspaceNames.get(task.workspaceId) : undefined;
          return (
            <div key={group.taskId} class="task">
              <h2 class="task__title">
                {task?.title || `Task ${group.taskId}`}
                {workspace && <span class="task__workspace"> · {workspace}</span>}
              </h2>
              <ul class="cards">
                {group.bundles.map((bundle) => (
                  <BundleCard key={bundle.pendingId} bundle={bundle} />
                ))}
              </ul>
            </div>
          );
        })}
      </div>
      {state.nextCursor && (
        <button type="button" class="load-more" onClick={loadMore} disabled={state.loadingMore}>
          {state.loadingMore ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}
