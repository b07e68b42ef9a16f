import { Injectable } from '@nestjs/common';
import { type Caller, callerReach } from '#authorization';
import { finalReceipt } from '../bundle/bundle.mapper.js';
import { BundleRepository } from '../bundle/bundle.repository.js';
import type { AuthorizedBundle } from '../bundle/bundle.types.js';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { finalResolvedBy } from '../bundle/resolved-by.rules.js';
import { expiresAtOf } from '../lifecycle/deadline.rules.js';
import { RoutingReportService } from '../routing/routing-report.service.js';
import { type BundleReport, stateOf } from './bundle-state.mapper.js';

/** A bundle whose caller may act on its task: its rows, its session and whether it is still active. */
export type ReadableBundle = AuthorizedBundle & { session: NonNullable<AuthorizedBundle['session']> };

/** Reading a bundle for a caller: the authorizing read every surface starts from, and where the bundle stands. */
@Injectable()
export class BundleReadService {
  constructor(
    private readonly bundles: BundleRepository,
    private readonly routing: RoutingReportService,
  ) {}

  /**
   * Spec M5 + A1–A5: the bundle's durable rows, once the caller is allowed to act on its task — in one
   * query, so a missing bundle and a foreign one are the same not-found at the same cost.
   */
  async authorizeBundle(caller: Caller, pendingId: string): Promise<ReadableBundle> {
    const bundle = await this.bundles.findAuthorizedBundle(pendingId, callerReach(caller));
    if (bundle.rows.length === 0) throw ClarificationError.notFound();
    return { rows: bundle.rows, session: bundle.session ?? { state: '', resume_url: '', task_id: '' }, active: bundle.active };
  }

  /** The bundle and where it stands (spec A7, read from the durable rows on any replica) — one query. */
  async getBundle(caller: Caller, pendingId: string): Promise<BundleReport> {
    const { rows, active } = await this.authorizeBundle(caller, pendingId);
    const state = stateOf(rows, active);
    const resolved = state.status === 'answered' || state.status === 'rejected';
    return { ...state, resolved_by: finalResolvedBy(rows, active), receipt: finalReceipt(rows, active), expires_at: expiresAtOf(rows), ...(await this.routing.report(caller, rows, resolved)) };
  }
}
