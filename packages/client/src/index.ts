export { Parley, DEFAULT_URL, type ParleyOptions, type AskInput, type AnswerInput, type Rejection, type Resolution, type PendingQuery } from './core/parley.client.js';
export { BundleHandle } from './core/bundle.handle.js';
export { type Outcome, type OutcomeStatus, type ResumedOutcome, isDecision } from './core/outcome.types.js';
export type { Handoff } from './core/handoff.reader.js';
export { type ResumeLedger, type LedgerEntry, MemoryResumeLedger, FileResumeLedger } from './core/resume.ledger.js';
export { createResumeReceiver, type ResumePayload } from './core/resume.receiver.js';
export {
  verifyReceipt,
  actionDigest,
  answersDigest,
  type ReceiptAction,
  type ReceiptClaims,
  type ReceiptExpectation,
  type ReceiptIdentity,
  type Redemption,
  type ReceiptInvalidReason,
  type ReceiptVerdict,
  type VerifyReceiptOptions,
} from './core/receipt.verifier.js';
export { backoffDelay, type BackoffOptions } from './core/backoff.policy.js';
export {
  ParleyError,
  ParleyValidationError,
  ParleyAuthError,
  ParleyNotFoundError,
  ParleyConflictError,
  ParleyRateLimitedError,
  ParleyServerError,
  ParleyUnreachableError,
  ParleyAbortedError,
  ParleyAlreadyResumedError,
  type ParleyErrorCode,
} from './core/parley.errors.js';
export type { Question, QuestionOption, Answer, BundleView, PendingBundle, Routing, ServerErrorCode, SessionState, VoteReceipt } from './core/wire.types.js';
export type { paths, components } from './core/generated/openapi.js';
