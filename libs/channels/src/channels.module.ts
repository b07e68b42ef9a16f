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
import { ChatLinkConfirmController } from './links/chat-link-confirm.controller.js';
import { ChatLinksController } from './links/chat-links.controller.js';
import { SlackApi } from './slack/slack-api.client.js';
import { SlackInteractionService } from './slack/slack-interaction.service.js';
import { SlackController } from './slack/slack.controller.js';
import { SlackPlatform } from './slack/slack.platform.js';
import { TelegramApi } from './telegram/telegram-api.client.js';
import { TelegramPollerRepository } from './telegram/telegram-poller.repository.js';
import { TelegramToggleRepository } from './telegram/telegram-toggle.repository.js';
import { TelegramUpdateService } from './telegram/telegram-update.service.js';
import { TelegramController } from './telegram/telegram.controller.js';
import { TelegramPlatform } from './telegram/telegram.platform.js';
import { TelegramPoller } from './telegram/telegram.poller.js';

/**
 * Chat as an answering surface (docs/channels.md): the platforms' request URLs, the card poster and
 * the management routes. The platforms whose tokens are set are the poster's; with none, nothing of
 * chat runs.
 */
@Module({
  imports: [ClarificationModule, ChatManagementModule],
  controllers: [SlackController, TelegramController, ChatLinksController, ChatLinkConfirmController, ChatDestinationsController],
  providers: [
    ChatAnswerService,
    ChatInteractionRepository,
    CardFeedService,
    CardPoster,
    ChatCardRepository,
    SlackApi,
    SlackInteractionService,
    SlackPlatform,
    TelegramApi,
    TelegramPlatform,
    TelegramPoller,
    TelegramPollerRepository,
    TelegramToggleRepository,
    TelegramUpdateService,
    {
      provide: CHAT_PLATFORMS,
      inject: [APP_CONFIG, SlackPlatform, TelegramPlatform],
      useFactory: (config: AppConfig, slack: SlackPlatform, telegram: TelegramPlatform): ChatPlatform[] => [
        ...(config.chat.slack ? [slack] : []),
        ...(config.chat.telegram ? [telegram] : []),
      ],
    },
  ],
  exports: [ChatManagementModule],
})
export class ChannelsModule {}
