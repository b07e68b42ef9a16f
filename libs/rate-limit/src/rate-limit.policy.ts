/** What is limited; each kind has its own budget per window (RATE_LIMIT_* in docs/configuration.md). */
export enum RateLimitKind {
  /** POST /api/v1/auth/session, per client address. */
  SignIn = 'sign_in',
  /** Requests whose bearer token or session cookie was refused (401), per client address. */
  FailedCredentials = 'failed_credentials',
  /** Answers and rejections on every surface, per identity. */
  Answers = 'answers',
  /** Listing calls (pending questions, tasks, workspaces), per identity. */
  Lists = 'lists',
  /** Asks (REST request; ask_user_question_kandev, on the budget of the identity that opened the session), per identity. */
  Asks = 'asks',
  /** Workspaces, tasks and sessions created (REST), per identity. */
  Creations = 'creations',
  /** Receipt verifications (POST /api/v1/receipts/verify), per client address. */
  Verifications = 'verifications',
}

/** The budgets kept per client address whoever the caller is (the others are per identity). */
export function isPerAddress(kind: RateLimitKind): boolean {
  return kind === RateLimitKind.SignIn || kind === RateLimitKind.FailedCredentials || kind === RateLimitKind.Verifications;
}

/** One budget check's outcome, as the RateLimit header fields and Retry-After report it. */
export interface RateLimitDecision {
  kind: RateLimitKind;
  allowed: boolean;
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}
