import type { BundleRow, BundleRowMetadata } from './clarification.types.js';

export interface NewBundleRow {
  id: string;
  content: string;
  metadata: BundleRowMetadata;
}

export interface NewBundle {
  pendingId: string;
  sessionId: string;
  taskId: string;
  turnId: string;
  rows: NewBundleRow[];
  /** The ASKED event's payload. */
  eventPayload: Record<string, unknown>;
  /** A deadline: the rows and the ASKED event carry `expires_at`, and the sweeper is told when it is due. */
  expiresInSeconds?: number;
  /** The escalation ladder of a routed bundle: one timer row per step, due `after_seconds` after the ask. */
  escalation?: { step: number; after_seconds: number; action: Record<string, unknown> }[];
}

/** A bundle as its caller may see it: its rows (empty when missing or not the caller's), its session, whether it is active. */
export interface AuthorizedBundle {
  rows: BundleRow[];
  session: { state: string; resume_url: string; task_id: string } | undefined;
  active: boolean;
}

/** What a lifecycle change did to one bundle. */
export interface TouchedBundle {
  pending_id: string;
  session_id: string;
  task_id: string;
  message_ids: string[];
}
