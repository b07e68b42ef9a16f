import { Module } from '@nestjs/common';
import { ChatDestinationRepository } from './destinations/chat-destination.repository.js';
import { ChatDestinationService } from './destinations/chat-destination.service.js';
import { ChatLinkRepository } from './links/chat-link.repository.js';
import { ChatLinkService } from './links/chat-link.service.js';

/** Account links and workspace destinations: what the CLI manages without the rest of chat. */
@Module({
  providers: [ChatLinkRepository, ChatLinkService, ChatDestinationRepository, ChatDestinationService],
  exports: [ChatLinkRepository, ChatLinkService, ChatDestinationService],
})
export class ChatManagementModule {}
