import { type BundleRow, ClarificationStatus } from './clarification.types.js';

/**
 * Where a bundle stands with respect to a winner, from its rows alone:
 * - `Final`: a winner's answer (or rejection) is recorded and delivered — what losers are told (R2);
 * - `Delivering`: a claim won but its delivery is not confirmed yet (it may still be rolled back);
 * - `Open`: no winner — pending (active or not), expired or cancelled.
 */
export enum Settlement {
  Final = 'final',
  Delivering = 'delivering',
  Open = 'open',
}

function isTerminal(row: BundleRow): boolean {
  return row.metadata.status === ClarificationStatus.Answered || row.metadata.status === ClarificationStatus.Rejected;
}

export function settlementOf(rows: readonly BundleRow[]): Settlement {
  const terminal = rows.filter(isTerminal);
  if (terminal.length === 0) return Settlement.Open;
  return terminal.some((row) => row.metadata.response_delivery_pending === true) ? Settlement.Delivering : Settlement.Final;
}

/** R2b: the status of the first row in D2 order that is answered or rejected. */
export function winnerStatus(rows: readonly BundleRow[]): ClarificationStatus.Answered | ClarificationStatus.Rejected | undefined {
  const status = rows.find(isTerminal)?.metadata.status;
  return status === ClarificationStatus.Answered || status === ClarificationStatus.Rejected ? status : undefined;
}
