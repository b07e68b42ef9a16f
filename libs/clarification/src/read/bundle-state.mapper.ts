import { recordedResponse, requestFromRows } from '../bundle/bundle.mapper.js';
import { type BundleRow, type ClarificationRequest, ClarificationStatus } from '../bundle/clarification.types.js';
import type { ResolvedBy } from '../bundle/resolved-by.rules.js';
import { Settlement, settlementOf, winnerStatus } from '../bundle/settlement.rules.js';
import type { ResolutionResponse } from '../bundle/resolution.types.js';
import { WaitFailure } from '../wait/waiter.store.js';
import type { RoutingReport } from '../routing/routing-report.service.js';
import type { BundleReadView, BundleStatus } from '../wire/bundle-read.wire.js';

export interface BundleState {
  request: ClarificationRequest;
  status: BundleStatus;
  /** The winner's response once final (R12 envelope), else null. */
  response: ResolutionResponse | null;
}

/** What GET /clarification/:id reports: the state, who won once final, and the deadline if any. */
export interface BundleReport extends BundleState, RoutingReport {
  resolved_by: ResolvedBy | null;
  /** The resolution's receipt, once final (the one every answerer got). */
  receipt: string | null;
  expires_at: string | null;
}

/** A bundle report as GET /clarification/:id answers it — and show_question, the MCP App's read. */
export function bundleReportView(state: BundleReport): BundleReadView {
  return {
    ...state.request,
    status: state.status,
    response: state.response,
    resolved_by: state.resolved_by,
    // Once resolved only (a bundle without a resolution reads exactly as before).
    ...(state.receipt === null ? {} : { receipt: state.receipt }),
    expires_at: state.expires_at,
    // A routed bundle only (one asked without routing reads exactly as before).
    ...(state.routing === undefined ? {} : { eligible: state.eligible, routing: state.routing, votes: state.votes }),
  };
}

function openStatus(rows: readonly BundleRow[], active: boolean): BundleStatus {
  if (active) return 'pending';
  if (rows.some((row) => row.metadata.status === ClarificationStatus.Expired)) return 'expired';
  if (rows.some((row) => row.metadata.status === ClarificationStatus.Cancelled)) return 'cancelled';
  return 'inactive';
}

/** Where a bundle stands, from its rows and whether the activeness rule holds it active. */
export function stateOf(rows: BundleRow[], active: boolean): BundleState {
  const request = requestFromRows(rows);
  switch (settlementOf(rows, active)) {
    case Settlement.Final: {
      const response = recordedResponse(rows);
      return {
        request,
        status: winnerStatus(rows) === ClarificationStatus.Rejected ? 'rejected' : 'answered',
        response: { answers: response.answers, rejected: response.rejected, reject_reason: '' },
      };
    }
    case Settlement.Delivering:
      return { request, status: 'delivering', response: null };
    case Settlement.Open:
      return { request, status: openStatus(rows, active), response: null };
  }
}

/** The wait failure that matches a bundle no longer active without a winner. */
export function closedReason(status: BundleStatus): WaitFailure {
  if (status === 'expired') return WaitFailure.Expired;
  if (status === 'cancelled') return WaitFailure.Cancelled;
  return WaitFailure.Superseded;
}
