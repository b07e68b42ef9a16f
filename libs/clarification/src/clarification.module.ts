import { Module } from '@nestjs/common';
import { TasksModule } from '#tasks';
import { AgentAskService } from './ask/agent-ask.service.js';
import { AuditController } from './audit/audit.controller.js';
import { AuditRecorder } from './audit/audit.recorder.js';
import { AuditRepository } from './audit/audit.repository.js';
import { AuditService } from './audit/audit.service.js';
import { BundleRepository } from './bundle/bundle.repository.js';
import { BundleSignals } from './wait/bundle-signal.service.js';
import { ClaimRepository } from './claim/claim.repository.js';
import { ClarificationLifecycleService } from './lifecycle/clarification-lifecycle.service.js';
import { ClarificationController } from './http/clarification.controller.js';
import { ClarificationService } from './ask/clarification.service.js';
import { DeadlineRepository } from './lifecycle/deadline.repository.js';
import { DeadlineSweeper } from './lifecycle/deadline.sweeper.js';
import { DeliverySweeper } from './delivery/delivery.sweeper.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { PendingListRepository } from './pending-list/pending-list.repository.js';
import { PendingListService } from './pending-list/pending-list.service.js';
import { QuestionEventRepository } from './events/question-event.repository.js';
import { QuestionEventService } from './events/question-event.service.js';
import { ResolveBundleService } from './resolve/resolve-bundle.service.js';
import { ResumeDispatcher } from './delivery/resume.dispatcher.js';
import { WaiterPresenceRepository } from './wait/waiter-presence.repository.js';
import { WaiterPresenceService } from './wait/waiter-presence.service.js';
import { WaiterStore } from './wait/waiter.store.js';

@Module({
  imports: [TasksModule],
  controllers: [ClarificationController, AuditController],
  providers: [
    AgentAskService,
    AuditRecorder,
    AuditRepository,
    AuditService,
    BundleRepository,
    BundleSignals,
    ClaimRepository,
    ClarificationLifecycleService,
    ClarificationService,
    DeadlineRepository,
    DeadlineSweeper,
    DeliverySweeper,
    DeliveryService,
    PendingListRepository,
    PendingListService,
    QuestionEventRepository,
    QuestionEventService,
    ResolveBundleService,
    ResumeDispatcher,
    WaiterPresenceRepository,
    WaiterPresenceService,
    WaiterStore,
  ],
  exports: [
    AgentAskService,
    AuditService,
    BundleRepository,
    ClarificationLifecycleService,
    ClarificationService,
    DeadlineSweeper,
    DeliveryService,
    DeliverySweeper,
    PendingListService,
    QuestionEventService,
    ResolveBundleService,
    WaiterStore,
  ],
})
export class ClarificationModule {}
