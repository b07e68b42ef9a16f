import type { App } from '@modelcontextprotocol/ext-apps';
import { useMemo } from 'preact/hooks';
import { BundleForm } from '../bundle/bundle.view.js';
import { BundleSourceContext } from '../bundle/bundle-source.js';
import type { Bundle } from '../inbox/inbox.types.js';
import { appBundleSource } from './app-bundle-source.js';
import { type BundleReport, bundleOfReport } from './report-bundle.mapper.js';

/** The bundles a tool result shows: show_question's one, or list_pending_questions_kandev's page. */
export function bundlesOfResult(structured: Record<string, unknown> | undefined): Bundle[] {
  if (structured === undefined || structured === null) return [];
  if (Array.isArray(structured.bundles)) return (structured.bundles as BundleReport[]).map((report) => bundleOfReport({ ...report, status: 'pending', resolved_by: null }));
  return typeof structured.pending_id === 'string' ? [bundleOfReport(structured as unknown as BundleReport)] : [];
}

const ignore = () => undefined;

/** The question app: the inbox's own bundle form for each bundle the host handed it, answering through the host. */
export function QuestionApp({ app, bundles }: { app: App; bundles: Bundle[] }) {
  const source = useMemo(() => appBundleSource(app), [app]);
  return (
    <BundleSourceContext.Provider value={source}>
      <main class="bundle mcp-app">
        {bundles.length === 0 && <p aria-live="polite">Waiting for a question…</p>}
        {bundles.map((bundle) => (
          <section key={bundle.pendingId} aria-label="Question from an agent">
            <BundleForm bundle={bundle} settlement={undefined} dispatch={ignore} onSignedOut={ignore} />
          </section>
        ))}
      </main>
    </BundleSourceContext.Provider>
  );
}
