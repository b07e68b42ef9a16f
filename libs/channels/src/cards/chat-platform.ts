import type { ChatPlatformName } from '../chat.types.js';
import type { CardView, PostedCard } from './card.types.js';

/** A destination that is a person: the card goes to their direct messages. */
export const DIRECT_PREFIX = 'dm:';

/**
 * One chat platform, as the card poster drives it. Each call throws a ChatPlatformError when the
 * platform refused or could not be reached (the poster retries later).
 */
export interface ChatPlatform {
  readonly name: ChatPlatformName;
  /** Where a bundle goes when neither its assignees nor its workspace say. */
  readonly defaultDestination: string | undefined;
  post(destination: string, card: CardView): Promise<PostedCard>;
  update(posted: PostedCard, card: CardView): Promise<void>;
}

/** The platforms configured in this process (none: chat costs nothing). */
export const CHAT_PLATFORMS = Symbol('CHAT_PLATFORMS');

export class ChatPlatformError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatPlatformError';
  }
}
