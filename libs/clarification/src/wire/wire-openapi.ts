import type { z } from 'zod';
import { wireComponents } from '#common';
import { actionWire } from '#receipts';
import { askedOptionWire, askedQuestionWire, bundleReadWire, PUBLISHED_AS_MAP, voteWire } from './bundle-read.wire.js';
import { resolvedByWire } from './resolved-by.wire.js';
import { answerWire, clarificationResponseWire, resolutionResponseWire, respondResultWire, voteReceiptWire } from './resolution.wire.js';
import {
  assignedUserWire,
  pendingBundleWire,
  pendingPageWire,
  pendingQuestionWire,
  questionOptionWire,
  routingViewWire,
  userIdsWire,
} from './pending-bundle.wire.js';

/**
 * The OpenAPI component each wire shape is published as (names clients' generated types already use),
 * in the order the Python client's generator numbers the anonymous enums inside them (a bundle's
 * status and a question's kind before a resolution's status and a resolver's kind).
 */
const COMPONENTS: ReadonlyArray<readonly [z.ZodType, string]> = [
  [askedOptionWire, 'OptionDoc'],
  [askedQuestionWire, 'QuestionDoc'],
  [voteWire, 'VoteDoc'],
  [bundleReadWire, 'BundleDoc'],
  [respondResultWire, 'RespondResultDoc'],
  [resolutionResponseWire, 'ResolutionResponseDoc'],
  [answerWire, 'AnswerDoc'],
  [voteReceiptWire, 'VoteReceiptDoc'],
  [clarificationResponseWire, 'ClarificationResponseDoc'],
  [resolvedByWire, 'ResolvedByDoc'],
  [pendingPageWire, 'PendingPageDoc'],
  [pendingBundleWire, 'PendingBundleDoc'],
  [pendingQuestionWire, 'PendingQuestionDoc'],
  [questionOptionWire, 'QuestionOptionDoc'],
  [actionWire, 'ActionDoc'],
  [routingViewWire, 'RoutingViewDoc'],
  [userIdsWire, 'UserIdsDoc'],
  [assignedUserWire, 'AssignedUserDoc'],
];

/** The clarification lib's wire shapes as OpenAPI components. */
export const clarificationWire = wireComponents(COMPONENTS, PUBLISHED_AS_MAP);
