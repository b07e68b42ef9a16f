import { CommandStatus, type DecisionError } from '../decisions.errors.js';

/** The result envelope's schema version: the reference's (its v1 had no disposition). */
export const ENVELOPE_SCHEMA_VERSION = 2;
export const ANSWER_DECISION = 'answer_decision';

/** Whether a result is final — the disposition, not the status, says so. */
export enum Disposition {
  NoReceipt = 'no_receipt',
  InProgress = 'in_progress',
  TerminalAccepted = 'terminal_accepted',
  TerminalRejected = 'terminal_rejected',
  TerminalUncertain = 'terminal_uncertain',
}

export interface EnvelopeError {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

export interface CommandEnvelope {
  schema_version: number;
  action: string;
  request_id: string | null;
  ok: boolean;
  dry_run: boolean;
  status: CommandStatus;
  disposition: Disposition;
  result: Record<string, unknown> | null;
  error: EnvelopeError | null;
  warnings: string[];
}

/** What the request said about itself, echoed into its envelope. */
export interface EnvelopeEcho {
  action: string;
  requestId: string | null;
  dryRun: boolean;
}

/** One command's answer: the serialized envelope (stored and replayed byte for byte) and what it says. */
export interface CommandReply {
  status: CommandStatus;
  disposition: Disposition;
  requestId: string | null;
  dryRun: boolean;
  body: string;
}

/** Serializes in the reference's key order; the text is what a receipt stores and a replay returns. */
export function toReply(envelope: CommandEnvelope): CommandReply {
  const body = JSON.stringify({
    schema_version: envelope.schema_version,
    action: envelope.action,
    request_id: envelope.request_id,
    ok: envelope.ok,
    dry_run: envelope.dry_run,
    status: envelope.status,
    disposition: envelope.disposition,
    result: envelope.result,
    error: envelope.error,
    warnings: envelope.warnings,
  });
  return { status: envelope.status, disposition: envelope.disposition, requestId: envelope.request_id, dryRun: envelope.dry_run, body };
}

export function successEnvelope(
  echo: EnvelopeEcho,
  status: CommandStatus.Accepted | CommandStatus.DryRun,
  disposition: Disposition,
  result: Record<string, unknown>,
): CommandEnvelope {
  return {
    schema_version: ENVELOPE_SCHEMA_VERSION,
    action: echo.action,
    request_id: echo.requestId,
    ok: true,
    dry_run: echo.dryRun,
    status,
    disposition,
    result,
    error: null,
    warnings: [],
  };
}

export function failureEnvelope(echo: EnvelopeEcho, error: DecisionError, disposition: Disposition): CommandEnvelope {
  return {
    schema_version: ENVELOPE_SCHEMA_VERSION,
    action: echo.action,
    request_id: echo.requestId,
    ok: false,
    dry_run: echo.dryRun,
    status: error.code,
    disposition,
    result: null,
    error: { code: error.code, message: error.message, details: { ...error.details } },
    warnings: [],
  };
}

/** The live answer_decision echo of a receipt's request id. */
export function liveEcho(requestId: string): EnvelopeEcho {
  return { action: ANSWER_DECISION, requestId, dryRun: false };
}
