import type { StatementCatalog } from '#persistence';
import { chatCardStatements } from './cards/chat-card.repository.js';
import { chatDestinationStatements } from './destinations/chat-destination.repository.js';
import { chatInteractionStatements } from './answer/chat-interaction.repository.js';
import { chatLinkStatements } from './links/chat-link.repository.js';
import { telegramPollerStatements } from './telegram/telegram-poller.repository.js';
import { telegramToggleStatements } from './telegram/telegram-toggle.repository.js';

/** Every statement the channels lib's repositories run, for `npm run sql:write` and its staleness test. */
export function channelsStatements(): StatementCatalog {
  return {
    lib: 'channels',
    statements: [
      ...chatInteractionStatements,
      ...chatCardStatements,
      ...chatDestinationStatements,
      ...chatLinkStatements,
      ...telegramPollerStatements,
      ...telegramToggleStatements,
    ],
  };
}
