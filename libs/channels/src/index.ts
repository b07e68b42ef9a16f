export { ChannelsModule } from './channels.module.js';
export { ChatManagementModule } from './chat-management.module.js';
export { ChatDestinationService, type ChatDestinationView } from './destinations/chat-destination.service.js';
export { ChatLinkService } from './links/chat-link.service.js';
export { slackSignature } from './slack/slack-signature.js';
export { channelsStatements } from './channels.statements.js';
