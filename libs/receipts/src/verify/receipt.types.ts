/** Who answered, as a receipt names them: the caller's kind and its id (the user's, or the agent's session; null for admin and synthetic). */
export interface ReceiptAnswerer {
  kind: string;
  id: string | null;
}

/** What a resolution's receipt is signed over, besides the registered claims. */
export interface ReceiptSubject {
  pendingId: string;
  outcome: 'answered' | 'rejected';
  /** The resolution the receipt is for: the answers in question order (none when rejected) and whether it was rejected. */
  resolution: { answers: unknown[]; rejected: boolean };
  actionDigest: string | null;
  answeredBy: ReceiptAnswerer;
  surface: string;
  sessionId: string;
  taskId: string;
  workspaceId: string;
}

/** The claims of a receipt (docs/receipts.md). */
export interface ReceiptClaims {
  iss: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  outcome: 'answered' | 'rejected';
  answers_digest: string;
  action_digest?: string;
  answered_by: ReceiptAnswerer;
  surface: string;
  session_id: string;
  task_id: string;
  workspace_id: string;
}

/** Why a receipt does not verify. */
export enum ReceiptInvalidReason {
  /** Not a compact JWS of a receipt: wrong shape, undecodable, no `kid`, or claims missing. */
  Malformed = 'malformed',
  /** The signature does not match the header and payload (the receipt was altered). */
  BadSignature = 'bad_signature',
  /** No published key has the receipt's `kid`. */
  UnknownKey = 'unknown_key',
  /** Its `exp` has passed. */
  Expired = 'expired',
  /** The action given is not the one the receipt's `action_digest` was signed over (or the receipt has none). */
  ActionMismatch = 'action_mismatch',
}

export type ReceiptVerdict = { valid: true; claims: ReceiptClaims } | { valid: false; reason: ReceiptInvalidReason };
