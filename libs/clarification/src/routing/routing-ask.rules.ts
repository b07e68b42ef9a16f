import { ClarificationError } from '../bundle/clarification.errors.js';
import type { AssignedUser, RoutingInput, StoredRouting } from './routing.types.js';
import { namedUsers } from './routing.validation.js';

/** What an ask stores for its routing: the rows' `metadata.routing`, and one timer per escalation step. */
export interface AskedRouting {
  stored: StoredRouting;
  ladder: { step: number; after_seconds: number; action: Record<string, unknown> }[];
}

/**
 * The routing an ask stores, its users named (`names`: those among the users it names that the asker
 * may route to, MembershipService.routableNames): any other is a 400 naming its field, one message
 * whether that user does not exist or cannot see the task. A reassignment's users are stored with
 * its step, named too.
 */
export function storedRouting(routing: RoutingInput, names: ReadonlyMap<string, string>): AskedRouting {
  const refused = namedUsers(routing).find((user) => !names.has(user.id));
  if (refused !== undefined) throw ClarificationError.validation(`${refused.field} is not a user who can see this task`);
  const assigned = (ids: readonly string[]): AssignedUser[] => ids.map((id) => ({ user_id: id, name: names.get(id) ?? '' }));
  return {
    stored: {
      answerers: routing.answerers === null ? null : assigned(routing.answerers),
      required_answers: routing.required_answers,
      escalation: routing.escalation,
    },
    ladder: routing.escalation.map((step, index) => ({
      step: index,
      after_seconds: step.after_seconds,
      action: step.reassign_to === undefined ? { remind: true } : { reassign_to: assigned(step.reassign_to.user_ids) },
    })),
  };
}
