/**
 * The resolution's shapes that rooms other than resolve/ speak: what a caller submits (audit/ records
 * it), the validated outcome (routing/ tallies it, delivery/ hands it over) and the response a bundle
 * reports (ask/ reads it back). Here in bundle/, below all of them, so that resolve/ — which builds on
 * those rooms — is never imported back by them.
 */
import type { ResolutionResponseWire } from '../wire/resolution.wire.js';
import type { Answer, TerminalStatus } from './clarification.types.js';

/** What a caller submits, from any surface, before validation. */
export interface ResolutionInput {
  answers?: unknown;
  rejected?: unknown;
  reject_reason?: unknown;
}

/** A validated, N3a-normalized outcome: what the claim receives and the winner reports. */
export interface NormalizedOutcome {
  terminal: TerminalStatus;
  answers: Answer[];
  rejectReason: string;
}

/** The response a resolution carries: the answers, or the rejection and its reason. */
export type ResolutionResponse = ResolutionResponseWire;
