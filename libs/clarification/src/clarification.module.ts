import { Module } from '@nestjs/common';
import { TasksModule } from '#tasks';
import { AgentAskService } from './agent-ask.service.js';
import { AuditController } from './audit.controller.js';
import { AuditRecorder } from './audit.recorder.js';
import { AuditRepository } from './audit.repository.js';
import { AuditService } from './audit.service.js';
import { BundleRepository } from './bundle.repository.js';
import { BundleSignals } from './bundle-signals.service.js';
import { ClaimRepository } from './claim.repository.js';
import { ClarificationLifecycleService } from './clarification-lifecycle.service.js';
import { ClarificationController } from './clarification.controller.js';
import { ClarificationService } from './clarification.service.js';
import { DeadlineRepository } from './deadline.repository.js';
import { DeadlineSweeper } from './deadline.sweeper.js';
import { DeliverySweeper } from './delivery-sweeper.js';
import { DeliveryService } from './delivery.service.js';
import { PendingListRepository } from './pending-list.repository.js';
import { PendingListService } from './pending-list.service.js';
import { QuestionEventRepository } from './question-event.repository.js';
import { QuestionEventService } from './question-event.service.js';
import { ResolveBundleService } from './resolve-bundle.service.js';
import { ResumeDispatcher } from './resume.dispatcher.js';
import { WaiterPresenceRepository } from './waiter-presence.repository.js';
import { WaiterPresenceService } from './waiter-presence.service.js';
import { WaiterStore } from './waiter.store.js';

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
