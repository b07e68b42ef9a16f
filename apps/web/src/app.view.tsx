import { useCallback, useEffect, useState } from 'preact/hooks';
import { BundleView } from './bundle/bundle.view.js';
import { ChatLinkView } from './chat-link/chat-link.view.js';
import { InboxView } from './inbox/inbox.view.js';
import type { FeedState } from './inbox/question-feed.js';
import { currentSession, type SessionInfo, type SignedIn, signOut } from './sign-in/session.api.js';
import { SignInView } from './sign-in/sign-in.view.js';
import { useInbox } from './inbox/use-inbox.js';

type Route = { kind: 'inbox' } | { kind: 'bundle'; pendingId: string } | { kind: 'link'; code: string };

function routeOf(hash: string): Route {
  const link = /^#\/link\/([A-Za-z0-9_-]+)$/.exec(hash);
  if (link) return { kind: 'link', code: link[1] };
  const match = /^#\/q\/(.+)$/.exec(hash);
  return match ? { kind: 'bundle', pendingId: decodeURIComponent(match[1]) } : { kind: 'inbox' };
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const follow = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  return route;
}

const FEED_LABEL: Record<FeedState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

export function App() {
  const [session, setSession] = useState<SessionInfo | { kind: 'loading' } | { kind: 'failed'; message: string }>({ kind: 'loading' });
  const refresh = useCallback(() => {
    currentSession().then(setSession, (error: unknown) => setSession({ kind: 'failed', message: String(error) }));
  }, []);
  useEffect(refresh, [refresh]);

  switch (session.kind) {
    case 'loading':
      return <main class="page">Loading…</main>;
    case 'failed':
      return (
        <main class="page">
          <p class="notice notice--error" role="alert">
            Parley could not be reached ({session.message}). <button onClick={refresh}>Try again</button>
          </p>
        </main>
      );
    case 'signed-out':
      return (
        <main class="page">
          <SignInView onSignedIn={refresh} />
        </main>
      );
    case 'signed-in':
      return <SignedInApp session={session} onSignedOut={() => setSession({ kind: 'signed-out' })} />;
  }
}

function SignedInApp({ session, onSignedOut }: { session: SignedIn; onSignedOut: () => void }) {
  const route = useRoute();
  const inbox = useInbox(onSignedOut);
  const feed = inbox.state.feed;
  const leave = async () => {
    await signOut().catch(() => undefined);
    onSignedOut();
  };

  return (
    <>
      <header class="top">
        <a class="top__brand" href="#/">
          Parley
        </a>
        <span class={`feed feed--${feed}`} role="status">
          {FEED_LABEL[feed]}
        </span>
        {session.authEnabled && (
          <span class="top__who">
            {session.name ? `Signed in as ${session.name}` : session.callerKind === 'admin' ? 'Signed in as admin' : ''}
            <button type="button" onClick={() => void leave()}>
              Sign out
            </button>
          </span>
        )}
      </header>
      <main class="page">
        {route.kind === 'link' ? (
          <ChatLinkView code={route.code} onSignedOut={onSignedOut} />
        ) : route.kind === 'inbox' ? (
          <InboxView state={inbox.state} directory={inbox.directory} setWorkspace={inbox.setWorkspace} loadMore={inbox.loadMore} />
        ) : (
          <BundleView
            key={route.pendingId}
            pendingId={route.pendingId}
            listed={inbox.state.bundles.find((bundle) => bundle.pendingId === route.pendingId)}
            settlement={inbox.state.settled[route.pendingId]}
            tasks={inbox.directory.tasks}
            dispatch={inbox.dispatch}
            onSignedOut={onSignedOut}
          />
        )}
      </main>
    </>
  );
}
