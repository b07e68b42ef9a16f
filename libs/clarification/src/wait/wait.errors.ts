import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { WaitFailure } from './waiter.store.js';

/** The error a wait that ended without an answer reports, by why it ended. */
export function waitEnded(reason: WaitFailure): ClarificationError {
  const messages: Record<WaitFailure, string> = {
    [WaitFailure.TimedOut]: 'clarification wait timed out; the question is still pending — wait again',
    [WaitFailure.Cancelled]: 'clarification wait ended: the question was cancelled',
    [WaitFailure.Expired]: 'clarification wait ended: the question expired',
    [WaitFailure.Superseded]: 'clarification wait ended: the question was superseded by a newer turn',
    [WaitFailure.Detached]: 'clarification wait ended: the agent was detached; the question stays pending',
    [WaitFailure.Aborted]: 'clarification wait ended: the caller went away',
    [WaitFailure.ShuttingDown]: 'clarification wait ended: the server is shutting down — wait again',
  };
  return new ClarificationError(ClarificationErrorCode.WaitEnded, messages[reason]);
}
