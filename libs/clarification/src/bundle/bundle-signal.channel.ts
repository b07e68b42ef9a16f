/** The NOTIFY channel on which every change of a bundle's fate is announced to every process. */
export const BUNDLE_CHANNEL = 'parley_bundle';

/**
 * - `settled`: a winner's answer is final (delivered, or the agent resumed) — observers and losers learn it;
 *   `from` names the process that made it final, which has already told its own waiters;
 * - `reopened`: a claim was rolled back — losers waiting on it try again;
 * - `expired` / `cancelled` / `superseded`: the bundle is no longer active — its waiters end;
 * - `detached`: the agent stopped waiting — its agent waiters end, observers go on;
 * - `deliver`: a claim's response is for the agent waiting on the process named `owner`;
 * - `voted`: a routed bundle counted a new vote (its fate unchanged, so it wakes no waiter) — what
 *   shows the quorum's progress (the chat cards) redraws, on whichever replica shows it.
 */
const KINDS = ['settled', 'reopened', 'expired', 'cancelled', 'superseded', 'detached', 'deliver', 'voted'] as const;

export type BundleSignalKind = (typeof KINDS)[number];

export interface BundleSignal {
  pending_id: string;
  kind: BundleSignalKind;
  owner?: string;
  from?: string;
}

export function parseBundleSignal(payload: string): BundleSignal | undefined {
  try {
    const value = JSON.parse(payload) as Partial<BundleSignal>;
    if (typeof value.pending_id !== 'string' || typeof value.kind !== 'string' || !(KINDS as readonly string[]).includes(value.kind)) return undefined;
    return {
      pending_id: value.pending_id,
      kind: value.kind,
      ...(typeof value.owner === 'string' ? { owner: value.owner } : {}),
      ...(typeof value.from === 'string' ? { from: value.from } : {}),
    };
  } catch {
    return undefined;
  }
}
