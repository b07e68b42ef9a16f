import { Module } from '@nestjs/common';
import { ClarificationModule } from '#clarification';
import { APP_CONFIG, type AppConfig } from '#config';
import { ChatAnswerService } from './answer/chat-answer.service.js';
import { ChatInteractionRepository } from './answer/chat-interaction.repository.js';
import { CardFeedService } from './cards/card-feed.service.js';
import { CardPoster } from './cards/card.poster.js';
import { ChatCardRepository } from './cards/chat-card.repository.js';
import { CHAT_PLATFORMS, type ChatPlatform } from './cards/chat-platform.js';
import { ChatManagementModule } from './chat-management.module.js';
import { ChatDestinationsController } from './destinations/chat-destinations.controller.js';
import { ChatLinksController } from './links/chat-links.controller.js';
import { SlackApi } from './slack/slack-api.client.js';
import { SlackInteractionService } from './slack/slack-interaction.service.js';
import { SlackController } from './slack/slack.controller.js';
import { SlackPlatform } from './slack/slack.platform.js';

/**
 * Chat as an answering surface (docs/channels.md): the platforms' request URLs, the card poster and
 * the management routes. The platforms whose tokens are set are the poster's; with none, nothing of
 * chat runs.
 */
@Module({
  imports: [ClarificationModule, ChatManagementModule],
  controllers: [SlackController, ChatLinksController, ChatDestinationsController],
  providers: [
    ChatAnswerService,
    ChatInteractionRepository,
    CardFeedService,
    CardPoster,
    ChatCardRepository,
    SlackApi,
    SlackInteractionService,
    SlackPlatform,
    {
      provide: CHAT_PLATFORMS,
      inject: [APP_CONFIG, SlackPlatform],
      useFactory: (config: AppConfig, slack: SlackPlatform): ChatPlatform[] => (config.chat.slack ? [slack] : []),
    },
  ],
  exports: [ChatManagementModule],
})
export class ChannelsModule {}
