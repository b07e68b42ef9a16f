import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/src/index.js';
import { TasksModule } from '../../tasks/src/index.js';
import { AgentAskService } from './agent-ask.service.js';
import { BundleRepository } from './bundle.repository.js';
import { ClarificationLifecycleService } from './clarification-lifecycle.service.js';
import { ClarificationController } from './clarification.controller.js';
import { ClarificationService } from './clarification.service.js';
import { DeliveryReconciler } from './delivery-reconciler.js';
import { DeliveryService } from './delivery.service.js';
import { PendingListRepository } from './pending-list.repository.js';
import { PendingListService } from './pending-list.service.js';
import { QuestionEventRepository } from './question-event.repository.js';
import { QuestionEventService } from './question-event.service.js';
import { ReplicaDeliveryRepository } from './replica-delivery.repository.js';
import { ReplicaDeliveryService } from './replica-delivery.service.js';
import { ResolveBundleService } from './resolve-bundle.service.js';
import { ResumeDispatcher } from './resume.dispatcher.js';
import { WaiterStore } from './waiter.store.js';

@Module({
  imports: [TasksModule],
  controllers: [ClarificationController],
  providers: [
    AgentAskService,
    BundleRepository,
    ClarificationLifecycleService,
    ClarificationService,
    DeliveryReconciler,
    DeliveryService,
    PendingListRepository,
    PendingListService,
    QuestionEventRepository,
    QuestionEventService,
    ReplicaDeliveryRepository,
    ReplicaDeliveryService,
    ResolveBundleService,
    ResumeDispatcher,
    { provide: WaiterStore, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new WaiterStore(config.askTimeoutMs) },
  ],
  exports: [AgentAskService, BundleRepository, ClarificationLifecycleService, ClarificationService, DeliveryService, PendingListService, QuestionEventService, ResolveBundleService, WaiterStore],
})
export class ClarificationModule {}
