import { Module } from '@nestjs/common';
import { ReceiptsModule } from '#receipts';
import { TasksModule } from '#tasks';
import { AgentAskService } from './ask/agent-ask.service.js';
import { AskService } from './ask/ask.service.js';
import { BundleWaitService } from './ask/bundle-wait.service.js';
import { CancelBundleService } from './ask/cancel-bundle.service.js';
import { AuditController } from './audit/audit.controller.js';
import { AuditRecorder } from './audit/audit.recorder.js';
import { AuditRepository } from './audit/audit.repository.js';
import { AuditService } from './audit/audit.service.js';
import { BundleRepository } from './bundle/bundle.repository.js';
import { ClaimRepository } from './claim/claim.repository.js';
import { DeliveryOwnershipRepository } from './claim/delivery-ownership.repository.js';
import { AgentDeliveryService } from './delivery/agent-delivery.service.js';
import { ClaimService } from './delivery/claim.service.js';
import { DeliveryEndService } from './delivery/delivery-end.service.js';
import { DeliveryFlightStore } from './delivery/delivery-flight.store.js';
import { DeliveryRecoveryService } from './delivery/delivery-recovery.service.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { DeliverySweeper } from './delivery/delivery.sweeper.js';
import { LiveDeliveryService } from './delivery/live-delivery.service.js';
import { ReplicaHandoffReceiver } from './delivery/replica-handoff.receiver.js';
import { ResumeHandoffService } from './delivery/resume-handoff.service.js';
import { ResumeDispatcher } from './delivery/resume.dispatcher.js';
import { QuestionEventRepository } from './events/question-event.repository.js';
import { LifecycleEventCounter } from './events/lifecycle-event.counter.js';
import { QuestionEventService } from './events/question-event.service.js';
import { ClarificationController } from './http/clarification.controller.js';
import { BundleLifecycleRepository } from './lifecycle/bundle-lifecycle.repository.js';
import { ClarificationLifecycleService } from './lifecycle/clarification-lifecycle.service.js';
import { DeadlineRepository } from './lifecycle/deadline.repository.js';
import { RoutingReportService } from './routing/routing-report.service.js';
import { VoteRepository } from './routing/vote.repository.js';
import { DeadlineSweeper } from './lifecycle/deadline.sweeper.js';
import { EscalationRepository } from './lifecycle/escalation.repository.js';
import { EscalationSweeper } from './lifecycle/escalation.sweeper.js';
import { PendingListRepository } from './pending-list/pending-list.repository.js';
import { PendingListService } from './pending-list/pending-list.service.js';
import { WorkerBundleRepository } from './pending-list/worker-bundle.repository.js';
import { WorkerBundleService } from './pending-list/worker-bundle.service.js';
import { BundleReadService } from './read/bundle-read.service.js';
import { ResolveBundleService } from './resolve/resolve-bundle.service.js';
import { BundleSignals } from './wait/bundle-signal.service.js';
import { WaiterPresenceRepository } from './wait/waiter-presence.repository.js';
import { WaiterPresenceService } from './wait/waiter-presence.service.js';
import { WaiterStore } from './wait/waiter.store.js';

@Module({
  imports: [TasksModule, ReceiptsModule],
  controllers: [ClarificationController, AuditController],
  providers: [
    AgentAskService,
    AgentDeliveryService,
    AskService,
    AuditRecorder,
    AuditRepository,
    AuditService,
    BundleLifecycleRepository,
    BundleReadService,
    BundleRepository,
    BundleSignals,
    BundleWaitService,
    CancelBundleService,
    ClaimRepository,
    ClaimService,
    ClarificationLifecycleService,
    DeadlineRepository,
    VoteRepository,
    RoutingReportService,
    DeadlineSweeper,
    EscalationRepository,
    EscalationSweeper,
    LifecycleEventCounter,
    DeliveryEndService,
    DeliveryFlightStore,
    DeliveryOwnershipRepository,
    DeliveryRecoveryService,
    DeliverySweeper,
    DeliveryService,
    LiveDeliveryService,
    PendingListRepository,
    PendingListService,
    QuestionEventRepository,
    QuestionEventService,
    ReplicaHandoffReceiver,
    ResolveBundleService,
    ResumeDispatcher,
    ResumeHandoffService,
    WaiterPresenceRepository,
    WaiterPresenceService,
    WaiterStore,
    WorkerBundleRepository,
    WorkerBundleService,
  ],
  exports: [
    AgentAskService,
    AuditService,
    BundleReadService,
    BundleRepository,
    BundleSignals,
    ClarificationLifecycleService,
    DeadlineSweeper,
    DeliveryService,
    EscalationSweeper,
    DeliverySweeper,
    PendingListService,
    QuestionEventRepository,
    QuestionEventService,
    ResolveBundleService,
    WaiterStore,
    WorkerBundleService,
  ],
})
export class ClarificationModule {}
