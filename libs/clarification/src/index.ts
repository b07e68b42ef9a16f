/**
 * The clarification lib as other libs and apps use it: the module, the services they inject, and the
 * types and rules they share. What only tests reach lives in `testing.ts` (`#clarification/testing`).
 */
export { ClarificationModule } from './clarification.module.js';
export { AgentAskService } from './ask/agent-ask.service.js';
export { bundleReportView } from './read/bundle-state.mapper.js';
export type { BundleReport } from './read/bundle-state.mapper.js';
export { BundleReadService } from './read/bundle-read.service.js';
export type { AgentAskListener } from './ask/parked-agent-ask.js';
export { normalizeQuestions } from './ask/question.validation.js';
export { AuditService } from './audit/audit.service.js';
export type { AuditAttemptView } from './audit/audit.types.js';
export { ClarificationError, ClarificationErrorCode } from './bundle/clarification.errors.js';
export type { Answer, BundleRow, ClarificationResponse } from './bundle/clarification.types.js';
export type { ResolutionInput, ResolutionResponse } from './bundle/resolution.types.js';
export { parseResolvedBy, type ResolvedBy } from './bundle/resolved-by.rules.js';
export { Settlement, settlementOf } from './bundle/settlement.rules.js';
export { type QuestionEventRow, QuestionEventRepository } from './events/question-event.repository.js';
export { QuestionEventService, QuestionEventType } from './events/question-event.service.js';
export { MAX_EXPIRES_IN_SECONDS, MIN_EXPIRES_IN_SECONDS } from './lifecycle/deadline.rules.js';
export {
  DEFAULT_PENDING_LIMIT,
  type DescribedBundle,
  MAX_PENDING_LIMIT,
  type PendingBundleView,
  PendingListService,
  type PendingPage,
} from './pending-list/pending-list.service.js';
export type { WorkerBundleHead } from './pending-list/worker-bundle.repository.js';
export { WorkerBundleService } from './pending-list/worker-bundle.service.js';
export { type Resolution, serializeResolution } from './resolve/resolution.envelope.js';
export { MAX_TEXT_RUNES, validateOutcome } from './resolve/resolution.validation.js';
export { ResolveBundleService } from './resolve/resolve-bundle.service.js';
export { WaiterStore } from './wait/waiter.store.js';
export { BundleSignals } from './wait/bundle-signal.service.js';
export { listedRouting, mayAnswer, routingOf } from './routing/routing.rules.js';
export { actionOfRows } from './bundle/bundle.mapper.js';
export type { RoutingView, VoteView } from './routing/routing.types.js';
export { clarificationStatements } from './clarification.statements.js';
export { resolvedByWire } from './wire/resolved-by.wire.js';
export { answerWire, resolutionResponseWire, resolutionWire, voteReceiptWire } from './wire/resolution.wire.js';
export { assignedUserWire, pendingBundleWire, pendingPageWire, pendingQuestionWire, questionOptionWire, routingViewWire } from './wire/pending-bundle.wire.js';
export { bundleReadWire, voterWire, voteWire } from './wire/bundle-read.wire.js';
export { clarificationWire } from './wire/wire-openapi.js';
