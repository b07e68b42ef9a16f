import { registerAppResource, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/server';

/** The question as an MCP App: the resource the question tools point at (docs/api/mcp.md). */
export const QUESTION_APP_URI = 'ui://parley/question';

/** Where the built app lives on Parley's own origin (apps/web/vite.mcp-app.config.ts builds it into dist/web/question-app). */
export const QUESTION_APP_ASSETS = '/question-app/';

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The app's page: an empty mount point and the inbox's own bundle view, built as one script and one
 * stylesheet, loaded from Parley's origin — no inline script, and no bundle data in the page (the
 * host hands the app the tool result, which the view renders with the inbox's escaping).
 */
function questionAppPage(origin: string): string {
  const base = escapeAttribute(`${origin}${QUESTION_APP_ASSETS}`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><meta name="color-scheme" content="light dark" />',
    `<title>Parley question</title><link rel="stylesheet" href="${base}question.css" /></head>`,
    `<body><div id="app"></div><script src="${base}question.js"></script></body>`,
    '</html>',
  ].join('\n');
}

/**
 * The resource as ext-apps' registerAppResource declares it (its MIME type, the origin its script and
 * style load from in `_meta.ui.csp.resourceDomains`), for the low-level server's list and read.
 */
export function questionAppResource(origin: string): { listed: Resource; read: ReadResourceResult } {
  let declared: Resource | undefined;
  // Only registerResource's string-URI overload is ever called here (ext-apps passes the URI as given).
  const capture = ((name: string, uri: string, config: Omit<Resource, 'uri' | 'name'>) => {
    declared = { uri, name, ...config };
    return undefined as never;
  }) as unknown as Parameters<typeof registerAppResource>[0]['registerResource'];
  registerAppResource(
    { registerResource: capture },
    'Parley question',
    QUESTION_APP_URI,
    { description: 'A pending question, answered in place', _meta: { ui: { csp: { resourceDomains: [origin] } } } },
    () => ({ contents: [] }),
  );
  if (declared === undefined) throw new Error('ext-apps declared no resource');
  const listed = declared;
  return {
    listed,
    read: { contents: [{ uri: QUESTION_APP_URI, mimeType: RESOURCE_MIME_TYPE, text: questionAppPage(origin), ...(listed._meta ? { _meta: listed._meta } : {}) }] },
  };
}
