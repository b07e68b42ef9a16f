import { useContext, useEffect, useState } from 'preact/hooks';
import { BundleSourceContext } from './bundle-source.js';
import type { ResolvedBy } from '../inbox/inbox.types.js';

const SURFACES: Record<string, string> = {
  web: 'the inbox',
  rest: 'the REST API',
  mcp: 'MCP',
  mcp_app: 'their AI client',
  graphql: 'GraphQL',
  command: 'a connector command',
};

function who(resolvedBy: ResolvedBy): string {
  switch (resolvedBy.kind) {
    case 'user':
      return resolvedBy.name || resolvedBy.userId || 'a user';
    case 'admin':
      return 'an administrator';
    case 'agent':
      return 'the session’s agent';
    default:
      return 'someone (authentication is off)';
  }
}

/** Who won a bundle: as the feed or the page already knows it, else read once (it is final by then). */
export function useResolvedBy(pendingId: string, known: ResolvedBy | null | undefined): ResolvedBy | null {
  const { fetchBundle } = useContext(BundleSourceContext);
  const [resolvedBy, setResolvedBy] = useState<ResolvedBy | null>(known ?? null);
  useEffect(() => {
    if (known) {
      setResolvedBy(known);
      return;
    }
    let current = true;
    fetchBundle(pendingId).then(
      (bundle) => current && setResolvedBy(bundle?.resolvedBy ?? null),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [pendingId, known]);
  return resolvedBy;
}

/** “Answered by alice via the inbox at …”: who won, and through which surface. */
export function ResolvedByLine({ resolvedBy, rejected }: { resolvedBy: ResolvedBy | null; rejected: boolean }) {
  if (!resolvedBy) return null;
  return (
    <p class="resolved-by">
      {rejected ? 'Skipped' : 'Answered'} by <strong>{who(resolvedBy)}</strong> via {SURFACES[resolvedBy.surface] ?? resolvedBy.surface} at{' '}
      <time dateTime={resolvedBy.at}>{new Date(resolvedBy.at).toLocaleString()}</time>
    </p>
  );
}
