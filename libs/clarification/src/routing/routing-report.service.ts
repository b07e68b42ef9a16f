import { Injectable } from '@nestjs/common';
import type { Caller } from '#authorization';
import type { BundleRow } from '../bundle/clarification.types.js';
import { listedRouting, routingOf, voteViews } from './routing.rules.js';
import type { RoutingView, VoteView } from './routing.types.js';
import { VoteRepository } from './vote.repository.js';

/** A routed bundle's routing as its own read reports it: eligibility, who is assigned, and the votes. */
export interface RoutingReport {
  eligible?: boolean;
  routing?: RoutingView;
  /** Every vote (voter, surface, time; answers once resolved). */
  votes?: VoteView[];
}

@Injectable()
export class RoutingReportService {
  constructor(private readonly votes: VoteRepository) {}

  /** Reads the votes only for a routed bundle: one without routing costs no statement and reports nothing more than before. */
  async report(caller: Caller, rows: readonly BundleRow[], resolved: boolean): Promise<RoutingReport> {
    const pendingId = rows[0]?.metadata.pending_id;
    if (routingOf(rows) === undefined || pendingId === undefined) return {};
    return { ...listedRouting(caller, rows), votes: voteViews(await this.votes.list(pendingId), resolved) };
  }
}
