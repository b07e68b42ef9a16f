/** Who asked or answered, as a receipt names them: the caller's kind and its id (the user's, or the agent's session; null for admin and synthetic). */
export interface ReceiptIdentity {
  kind: string;
  id: string | null;
}

/** One answer as every surface reports it. */
export interface ReceiptAnswer {
  question_id: string;
  selected_options: string[];
  custom_text: string;
}

/** What a resolution's receipt is signed over, besides the registered claims. */
export interface ReceiptSubject {
  pendingId: string;
  outcome: 'answered' | 'rejected';
  /** The resolution the receipt is for: the answers in question order (none when rejected) and whether it was rejected. */
  resolution: { answers: ReceiptAnswer[]; rejected: boolean };
  actionDigest: string | null;
  /** Who asked the bundle (the session's agent, or the identity that opened the session, or an admin). */
  askedBy: ReceiptIdentity;
  answeredBy: ReceiptIdentity;
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
  /** The option ids chosen, per question id (`{}` for a rejection; free text is never in a receipt). */
  selections: ReceiptSelections;
  asked_by: ReceiptIdentity;
  answered_by: ReceiptIdentity;
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
  /** It is signed and unexpired, but says something other than what the executor expected (see `mismatch`). */
  ExpectationMismatch = 'expectation_mismatch',
  /** Its bundle no longer records it: the answer it was issued for was rolled back (or it never was this server's resolution). */
  Revoked = 'revoked',
}

/** Option ids chosen, per question id. */
export type ReceiptSelections = Record<string, string[]>;

/** What an executor requires a receipt to say; each field given must hold (selections: exactly these options, for each question named). */
export interface ReceiptExpectation {
  pending_id?: string;
  outcome?: 'answered' | 'rejected';
  selections?: ReceiptSelections;
  asked_by?: ReceiptIdentity;
}

/** Every reason but `expectation_mismatch` (which comes with what did not hold). */
export type PlainInvalidReason = Exclude<ReceiptInvalidReason, ReceiptInvalidReason.ExpectationMismatch>;

export type ReceiptVerdict =
  | { valid: true; claims: ReceiptClaims }
  | { valid: false; reason: PlainInvalidReason }
  | { valid: false; reason: ReceiptInvalidReason.ExpectationMismatch; mismatch: string[] };

/** Why a redemption spent nothing, besides the reasons a receipt does not verify. */
export enum RedemptionRefusal {
  /** This receipt's `jti` was redeemed before, on any replica. */
  AlreadyRedeemed = 'already_redeemed',
}

export type RedemptionResult =
  | { redeemed: true; claims: ReceiptClaims }
  | { redeemed: false; reason: PlainInvalidReason | RedemptionRefusal }
  | { redeemed: false; reason: ReceiptInvalidReason.ExpectationMismatch; mismatch: string[] };
