import { Injectable, Logger } from '@nestjs/common';
import { userCaller } from '#authorization';
import { ClarificationError, ClarificationErrorCode, type Resolution, ResolveBundleService } from '#clarification';
import { assertNever } from '#common';
import { callerKey, RateLimitKind, RateLimitService } from '#rate-limit';
import type { ChatPlatformName } from '../chat.types.js';
import { ChatLinkRepository } from '../links/chat-link.repository.js';
import type { ChatAnswer, ChatAnswerOutcome, ChatRefusal } from './chat-answer.types.js';
import { ChatInteractionRepository } from './chat-interaction.repository.js';

const refused = (reason: ChatRefusal, message: string): ChatAnswerOutcome => ({ kind: 'refused', reason, message });

/** A resolver error as the person in chat is told it (nothing changed). */
function refusalOf(error: ClarificationError): ChatAnswerOutcome {
  switch (error.code) {
    case ClarificationErrorCode.NotFound:
      return refused('not_found', 'This question is not one you can see.');
    case ClarificationErrorCode.NotEligible:
      return refused('not_eligible', 'This question is assigned to someone else: your answer was not counted.');
    case ClarificationErrorCode.AlreadyVoted:
      return refused('already_voted', 'You already voted differently on this question.');
    case ClarificationErrorCode.Validation:
      return refused('invalid', `That answer is not valid: ${error.message}`);
    case ClarificationErrorCode.NotActive:
    case ClarificationErrorCode.SessionEnded:
    case ClarificationErrorCode.TaskArchived:
    case ClarificationErrorCode.WaitEnded:
    case ClarificationErrorCode.Expired:
      return refused('closed', 'This question is no longer open: nothing was changed.');
    case ClarificationErrorCode.DeliveryFailed:
    case ClarificationErrorCode.InProgress:
    case ClarificationErrorCode.OutcomeUnknown:
    case ClarificationErrorCode.Internal:
      return refused('busy', 'Parley could not settle this answer just now: try again in a moment.');
    default:
      return assertNever(error.code);
  }
}

function outcomeOf(resolution: Resolution): ChatAnswerOutcome {
  if (resolution.claimed) return { kind: 'won', status: resolution.status };
  if (resolution.vote) return { kind: 'voted', votes: resolution.vote.votes, required: resolution.vote.required_answers };
  return { kind: 'lost', status: resolution.status, answers: resolution.response.answers };
}

/**
 * A click or reply in chat, through the one resolver: the account answers as the Parley user it is
 * linked to — that user's visibility, routing eligibility, votes and answer budget, as on REST — and
 * the winner is recorded with the platform as its surface. The platform's interaction id is reserved
 * first: a retry of it resolves nothing again and records no second attempt, it gets the first outcome.
 */
@Injectable()
export class ChatAnswerService {
  private readonly logger = new Logger('ChatAnswers');

  constructor(
    private readonly interactions: ChatInteractionRepository,
    private readonly links: ChatLinkRepository,
    private readonly limits: RateLimitService,
    private readonly resolver: ResolveBundleService,
  ) {}

  answer(platform: ChatPlatformName, answer: ChatAnswer): Promise<ChatAnswerOutcome> {
    return this.once(platform, answer.interactionId, () => this.resolve(platform, answer));
  }

  /** Does `work` for the platform's interaction id once: a repeat of the id gets the first outcome. */
  async once(platform: ChatPlatformName, interactionId: string, work: () => Promise<ChatAnswerOutcome>): Promise<ChatAnswerOutcome> {
    const reservation = await this.interactions.reserve(platform, interactionId);
    switch (reservation.kind) {
      case 'replay':
        return reservation.outcome;
      case 'in_progress':
        return refused('busy', 'This answer is still being recorded.');
      case 'reserved':
        break;
      default:
        return assertNever(reservation);
    }
    const outcome = await work();
    await this.interactions.record(platform, interactionId, outcome);
    return outcome;
  }

  private async resolve(platform: ChatPlatformName, answer: ChatAnswer): Promise<ChatAnswerOutcome> {
    const userId = await this.links.userOf(platform, answer.accountId);
    if (userId === undefined) return { kind: 'unlinked' };
    const caller = userCaller(userId);
    const budget = await this.limits.consume(RateLimitKind.Answers, callerKey(caller, ''));
    if (!budget.allowed) return refused('rate_limited', `Too many answers: try again in ${budget.resetSeconds} s.`);
    try {
      return outcomeOf(await this.resolver.resolve(caller, answer.pendingId, { answers: answer.answers }, platform));
    } catch (error) {
      if (error instanceof ClarificationError) return refusalOf(error);
      this.logger.error({ msg: 'chat answer failed', platform, pending_id: answer.pendingId, err: String(error) });
      return refused('busy', 'Parley could not record this answer just now: try again in a moment.');
    }
  }
}
