/**
 * Clarification's internals that tests and benchmarks reach (`#clarification/testing`): repositories,
 * the claim and its delivery, sweepers and signals. Only test/ and bench/ may import this entry
 * (eslint's lib-boundaries rule); libs and apps use `index.ts`.
 */
export { BundleWaitService } from './ask/bundle-wait.service.js';
export { bundleTaskId, responseFor } from './bundle/bundle.mapper.js';
export { BundleRepository } from './bundle/bundle.repository.js';
export { ClarificationStatus, type TerminalStatus } from './bundle/clarification.types.js';
export { winnerIdentity } from './bundle/resolved-by.rules.js';
export { ClaimRepository } from './claim/claim.repository.js';
export type { ClaimedRow, ClaimPlan } from './claim/claim.types.js';
export { DeliveryOwnershipRepository } from './claim/delivery-ownership.repository.js';
export { DeliveryService } from './delivery/delivery.service.js';
export { DeliverySweeper } from './delivery/delivery.sweeper.js';
export { WinnerDelivery, type WinnerResult } from './delivery/delivery.types.js';
export { QuestionEventRepository } from './events/question-event.repository.js';
export { QUESTION_EVENT_RETENTION_MS } from './events/question-event.service.js';
export { BundleLifecycleRepository } from './lifecycle/bundle-lifecycle.repository.js';
export { type PendingListQuery, PendingListRepository } from './pending-list/pending-list.repository.js';
export { BUNDLE_CHANNEL } from './bundle/bundle-signal.channel.js';
export { BundleSignals } from './wait/bundle-signal.service.js';
export { EscalationSweeper } from './lifecycle/escalation.sweeper.js';
export { castBallot, tally } from './routing/routing.rules.js';
export { DeadlineSweeper } from './lifecycle/deadline.sweeper.js';
