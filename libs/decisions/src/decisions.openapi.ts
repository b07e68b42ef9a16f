import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ApiClosedSchema } from '#common';
import { ANSWER_DECISION, Disposition } from './command/command.envelope.js';
import { REQUEST_SCHEMA_VERSION } from './command/command.request.js';
import { CommandStatus } from './decisions.errors.js';

/*
 * The request of POST /api/v1/commands, as parseCommandRequest (command.request.ts) checks it: every
 * object closed (an unknown or transport field is invalid_request), text non-blank. Whether a worker,
 * a decision_ref or an option ref exists is the service's to say (unknown_worker, decision_not_pending,
 * invalid_selection).
 */

@ApiClosedSchema()
export class CommandTargetDoc {
  @ApiProperty({ minLength: 1, description: 'The worker: an agent session (worker_id of GET /api/v1/pending-interactions)' })
  worker_id!: string;
}

@ApiClosedSchema()
export class OptionRefsSelectionDoc {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', minLength: 1 },
    minItems: 1,
    description: 'Refs of the decision options ("1", "2", …): one for single and plan, one or more unique refs for multi',
  })
  option_refs!: string[];
}

@ApiClosedSchema()
export class TextSelectionDoc {
  @ApiProperty({ minLength: 1, description: 'Write-in text (a single decision)' })
  text!: string;
}

@ApiClosedSchema()
export class CommandParamsDoc {
  @ApiProperty({ minLength: 1, description: 'The decision_ref of the decision answered (it changes whenever the decision does)' })
  decision_ref!: string;

  @ApiProperty({ oneOf: [{ $ref: getSchemaPath(OptionRefsSelectionDoc) }, { $ref: getSchemaPath(TextSelectionDoc) }] })
  selection!: OptionRefsSelectionDoc | TextSelectionDoc;
}

@ApiClosedSchema()
export class CommandRequestDoc {
  @ApiProperty({ type: 'integer', enum: [REQUEST_SCHEMA_VERSION] })
  schema_version!: number;

  @ApiProperty({ enum: [ANSWER_DECISION] })
  action!: string;

  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9._-]{1,128}$', description: 'The caller\'s idempotency key: required for a live request (never trimmed or case-folded)' })
  request_id?: string;

  // Not `default: true`: openapi-typescript would make the field required in the client's types.
  @ApiPropertyOptional({ description: 'true when left out: only the checks run, nothing is sent or stored. false (with a request_id) sends the answer' })
  dry_run?: boolean;

  @ApiProperty({ type: CommandTargetDoc })
  target!: CommandTargetDoc;

  @ApiProperty({ type: CommandParamsDoc })
  params!: CommandParamsDoc;
}

/** The statuses of a failed command (DecisionErrorCode): the values an envelope's `error.code` takes. */
const FAILURE_STATUSES = Object.values(CommandStatus).filter((status) => status !== CommandStatus.Accepted && status !== CommandStatus.DryRun);

/** OpenAPI schema of a failed command's `error` (command.envelope.ts, EnvelopeError). */
export class CommandErrorDoc {
  @ApiProperty({ type: String, enum: FAILURE_STATUSES, description: 'The same value as the envelope status' })
  code!: string;

  @ApiProperty({ example: 'target worker does not exist or is not open' })
  message!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'e.g. `field` or `fields` of an invalid_request; `{}` when there is nothing to add' })
  details!: Record<string, unknown>;
}

/**
 * OpenAPI schema of the command result envelope (command.envelope.ts, CommandEnvelope; docs/api/commands.md):
 * every answer of POST /api/v1/commands that got past the HTTP boundary — successes and the service's
 * failures alike — is this body, stored and replayed byte for byte.
 */
export class CommandResultDoc {
  @ApiProperty({ type: 'integer', example: 2, description: 'The version of the envelope: 2 (with disposition)' })
  schema_version!: number;

  @ApiProperty({ example: 'answer_decision', description: 'The action of the request, echoed ("" when it had none)' })
  action!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The request_id of the request, echoed; null when it had no valid one' })
  request_id!: string | null;

  @ApiProperty({ description: 'true for dry_run and accepted' })
  ok!: boolean;

  @ApiProperty({ description: 'false only for a live request (`"dry_run": false` with a valid request_id)' })
  dry_run!: boolean;

  @ApiProperty({ enum: CommandStatus, enumName: 'CommandStatus', description: 'The outcome; its HTTP status only sorts it (docs/api/commands.md)' })
  status!: CommandStatus;

  @ApiProperty({ enum: Disposition, enumName: 'Disposition', description: 'Whether the result is final — the disposition, not the status, says so' })
  disposition!: Disposition;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'On success: target, decision, delivery_state (and pending_id once sent); null on failure' })
  result!: Record<string, unknown> | null;

  @ApiProperty({ type: CommandErrorDoc, nullable: true, description: 'On failure; null on success' })
  error!: CommandErrorDoc | null;

  @ApiProperty({ type: [String] })
  warnings!: string[];
}
