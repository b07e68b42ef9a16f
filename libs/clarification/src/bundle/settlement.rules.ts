import { type BundleRow, ClarificationStatus } from './clarification.types.js';

/**
 * Where a bundle stands with respect to a winner, from its rows and whether the shared activeness
 * rule holds it active:
 * - `Final`: a winner's answer (or rejection) is recorded and delivered — what losers are told (R2);
 * - `Delivering`: a claim won but its delivery is not confirmed yet (it may still be rolled back);
 * - `Open`: no winner — pending (active or not), expired or cancelled.
 *
 * An active bundle is always `Open`: the claim may still move its pending rows, so no answer is final
 * yet. That is what lets a mixed legacy bundle (some rows terminal, some pending — D1/L12) be finished
 * rather than replayed forever: its terminal rows are history, not a winner.
 */
export enum Settlement {
  Final = 'final',
  Delivering = 'delivering',
  Open = 'open',
}

function isTerminal(row: BundleRow): boolean {
  return row.metadata.status === ClarificationStatus.Answered || row.metadata.status === ClarificationStatus.Rejected;
}

/** The activeness rule's row status test (absent counts as pending, an unrecognized value does not). */
export function isPendingRow(row: BundleRow): boolean {
  const status = row.metadata.status ?? '';
  return status === '' || status === String(ClarificationStatus.Pending);
}

/** When the claim that wrote the row won (`resolved_by.at`), or undefined when no claim recorded itself on it. */
function claimedAt(row: BundleRow): string | undefined {
  const recorded = row.metadata.resolved_by;
  if (recorded === null || typeof recorded !== 'object') return undefined;
  const at = (recorded as { at?: unknown }).at;
  return typeof at === 'string' ? at : undefined;
}

/**
 * The rows the winner wrote, in D2 order. A claim stamps every row it moves with one `resolved_by`, so
 * the winner is the latest claim recorded on the rows: on a mixed legacy bundle that was finished, its
 * already-terminal rows (which no claim of ours wrote) are not the winner. Rows no claim recorded itself
 * on — a legacy bundle terminal throughout — fall back to R2b: every answered or rejected row.
 */
export function winningRows(rows: readonly BundleRow[]): BundleRow[] {
  const terminal = rows.filter(isTerminal);
  const latest = terminal.reduce<string | undefined>((max, row) => {
    const at = claimedAt(row);
    return at !== undefined && (max === undefined || Date.parse(at) > Date.parse(max)) ? at : max;
  }, undefined);
  return latest === undefined ? terminal : terminal.filter((row) => claimedAt(row) === latest);
}

export function settlementOf(rows: readonly BundleRow[], active: boolean): Settlement {
  if (active) return Settlement.Open;
  const winning = winningRows(rows);
  if (winning.length === 0) return Settlement.Open;
  return rows.some((row) => isTerminal(row) && row.metadata.response_delivery_pending === true) ? Settlement.Delivering : Settlement.Final;
}

/** R2b: the winner's status — that of its first row in D2 order. */
export function winnerStatus(rows: readonly BundleRow[]): ClarificationStatus.Answered | ClarificationStatus.Rejected | undefined {
  const status = winningRows(rows)[0]?.metadata.status;
  return status === ClarificationStatus.Answered || status === ClarificationStatus.Rejected ? status : undefined;
}
