import { createContext } from 'preact';
import { fetchBundle } from '../inbox/inbox.api.js';
import type { Bundle } from '../inbox/inbox.types.js';
import { respond, type RespondBody, type RespondOutcome } from './respond.api.js';

/**
 * Where the bundle view reads a bundle and sends an answer: the inbox page through GraphQL and REST;
 * the question's MCP App through its host's tool calls (mcp-app/app-bundle-source.ts). One form, two
 * ways to reach Parley.
 */
export interface BundleSource {
  fetchBundle: (pendingId: string) => Promise<Bundle | undefined>;
  respond: (pendingId: string, body: RespondBody) => Promise<RespondOutcome>;
}

export const INBOX_SOURCE: BundleSource = { fetchBundle, respond };

export const BundleSourceContext = createContext<BundleSource>(INBOX_SOURCE);
