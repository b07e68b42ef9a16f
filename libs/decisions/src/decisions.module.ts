import { Module } from '@nestjs/common';
import { ClarificationModule } from '#clarification';
import { CommandClock } from './receipts/command-clock.js';
import { CommandReceiptRepository } from './receipts/command-receipt.repository.js';
import { CommandRetentionService } from './receipts/command-retention.service.js';
import { CommandService } from './command.service.js';
import { DecisionCheckService } from './decision/decision-check.service.js';
import { DecisionRepository } from './decision/decision.repository.js';
import { DecisionsController } from './decisions.controller.js';
import { PendingInteractionsService } from './decision/pending-interactions.service.js';

@Module({
  imports: [ClarificationModule],
  controllers: [DecisionsController],
  providers: [
    CommandClock,
    CommandReceiptRepository,
    CommandRetentionService,
    CommandService,
    DecisionCheckService,
    DecisionRepository,
    PendingInteractionsService,
  ],
  exports: [CommandClock, CommandReceiptRepository, CommandRetentionService, CommandService, PendingInteractionsService],
})
export class DecisionsModule {}
