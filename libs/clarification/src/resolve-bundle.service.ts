import { Injectable, Logger } from '@nestjs/common';
import type { Caller } from '../../authorization/src/index.js';
import { BundleRepository } from './bundle.repository.js';
import { recordedAnswers, responseFor } from './bundle.mapper.js';
import { ClarificationError, ClarificationErrorCode } from './clarification.errors.js';
import { ClarificationService } from './clarification.service.js';
import { type BundleRow, ClarificationStatus, type TerminalStatus } from './clarification.types.js';
import { DeliveryService } from './delivery.service.js';
import type { Resolution } from './resolution.envelope.js';
import { type ResolutionInput, validateOutcome } from './resolution.validation.js';

export type ResolutionSurface = 'rest' | 'mcp' | 'graphql' | 'command';

function isTerminal(status: string | undefined): status is TerminalStatus {
  return status === ClarificationStatus.Answered || status === ClarificationStatus.Rejected;
}

/**
 * ResolveBundle — the only way any surface resolves a bundle: resolve its task (M5) → authorize
 * (A1–A5, denial ⇒ not found) → validate (N6–N8b, L16) → normalize (N3a) → claim by delegation
 * (P1: no claim SQL here) → loser branch (R2) or winner delivery (R7).
 */
@Injectable()
export class ResolveBundleService {
  private readonly logger = new Logger('ResolveBundle');

  constructor(
    private readonly clarifications: ClarificationService,
    private readonly bundles: BundleRepository,
    private readonly delivery: DeliveryService,
  ) {}

  async resolve(caller: Caller, pendingId: string, input: ResolutionInput, surface: ResolutionSurface): Promise<Resolution> {
    try {
      const resolution = await this.resolveOnce(caller, pendingId, input);
      this.logger.log({ msg: 'resolution', pending_id: pendingId, surface, claimed: resolution.claimed, status: resolution.status });
      return resolution;
    } catch (error) {
      const outcome = error instanceof ClarificationError ? error.code : 'error';
      this.logger.log({ msg: 'resolution', pending_id: pendingId, surface, outcome });
      throw error;
    }
  }

  private async resolveOnce(caller: Caller, pendingId: string, input: ResolutionInput): Promise<Resolution> {
    const rows = await this.clarifications.authorizeBundle(caller, pendingId);
    const outcome = validateOutcome(input, rows);
    const responses = outcome.terminal === ClarificationStatus.Answered
      ? new Map(outcome.answers.map((answer) => [answer.question_id, answer]))
      : undefined;
    let claim: { claimed: boolean; rows: BundleRow[] };
    try {
      claim = await this.bundles.completeActiveBundle(pendingId, outcome.terminal, responses);
    } catch (error) {
      this.logger.error({ msg: 'claim failed', pending_id: pendingId, err: String(error) });
      throw new ClarificationError(ClarificationErrorCode.Internal, 'the clarification could not be resolved');
    }
    if (!claim.claimed) return this.loserOutcome(pendingId);
    const response = responseFor(pendingId, outcome.answers, outcome.terminal === ClarificationStatus.Rejected, outcome.rejectReason);
    await this.delivery.deliverWinner(claim.rows, response);
    return {
      claimed: true,
      status: outcome.terminal,
      response: { answers: response.answers, rejected: response.rejected, reject_reason: response.reject_reason },
    };
  }

  /** R2/R2a/R2b: one re-read; a winner exists ⇒ its payload (reason never stored ⇒ ""); none ⇒ 409. */
  private async loserOutcome(pendingId: string): Promise<Resolution> {
    const rows = await this.bundles.findBundle(pendingId);
    const status = rows.map((row) => row.metadata.status).find(isTerminal);
    if (!status) throw ClarificationError.notActive();
    return {
      claimed: false,
      status,
      response: {
        answers: recordedAnswers(rows),
        rejected: status === ClarificationStatus.Rejected,
        reject_reason: '',
      },
    };
  }
}
