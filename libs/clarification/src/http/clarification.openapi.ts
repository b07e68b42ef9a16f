import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiClosedSchema, INPUT_LIMITS } from '#common';
import { type Action, actionWire } from '#receipts';
import type { ResolvedBy } from '../bundle/resolved-by.rules.js';
import type { RoutingView } from '../routing/routing.types.js';
import { resolvedByWire } from '../wire/resolved-by.wire.js';
import { type AnswerWire, answerWire } from '../wire/resolution.wire.js';
import { routingViewWire, userIdsWire } from '../wire/pending-bundle.wire.js';
import { wireRef } from '../wire/wire-openapi.js';
import { MAX_ESCALATION_SECONDS, MAX_ESCALATION_STEPS, MAX_REQUIRED_ANSWERS, MIN_ESCALATION_SECONDS } from '../routing/routing.validation.js';

/**
 * OpenAPI schemas of the clarification REST surface (request bodies are validated by the services; see
 * README). The parts of a request a service checks say its limits, and refuse fields they do not name.
 * The shapes every surface reports (the resolution, the pending bundle, …) are not here: they are
 * declared once in wire/ and referenced by name.
 */

type UserIds = NonNullable<RoutingView['answerers']>;

@ApiClosedSchema()
export class OptionDoc {
  @ApiPropertyOptional({ maxLength: INPUT_LIMITS.id, description: 'Generated as q{i}_opt{j} when absent' }) option_id?: string;
  @ApiProperty({ minLength: 1, maxLength: INPUT_LIMITS.label }) label!: string;
  @ApiPropertyOptional({ maxLength: INPUT_LIMITS.description }) description?: string;
}

@ApiClosedSchema()
export class QuestionDoc {
  @ApiPropertyOptional({ maxLength: INPUT_LIMITS.id, description: 'Generated as q1..qN when absent' }) id?: string;
  @ApiPropertyOptional({ maxLength: INPUT_LIMITS.title }) title?: string;
  @ApiProperty({ minLength: 1, maxLength: INPUT_LIMITS.prompt }) prompt!: string;
  @ApiProperty({ type: [OptionDoc], minItems: 2, maxItems: 6 }) options!: OptionDoc[];
  @ApiPropertyOptional({ description: 'A connector may pick several options' }) multi_select?: boolean;
  @ApiPropertyOptional({ enum: ['single', 'plan'] }) kind?: string;
}

@ApiClosedSchema()
export class EscalationStepDoc {
  @ApiProperty({ type: 'integer', minimum: MIN_ESCALATION_SECONDS, maximum: MAX_ESCALATION_SECONDS, description: 'Seconds after the ask; strictly increasing from step to step' })
  after_seconds!: number;
  @ApiPropertyOptional({ description: 'true: emit a REMINDED event naming the eligible users' }) remind?: boolean;
  @ApiPropertyOptional({ allOf: [wireRef(userIdsWire)], description: 'Replace the eligible answerers (an ESCALATED event)' }) reassign_to?: UserIds;
}

@ApiClosedSchema()
export class RoutingDoc {
  @ApiPropertyOptional({ allOf: [wireRef(userIdsWire)], description: 'Only these users (and an admin) may answer; others who see the bundle get 403 NOT_ELIGIBLE' })
  answerers?: UserIds;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_REQUIRED_ANSWERS, default: 1, description: 'Identical answers from this many people resolve the bundle' })
  required_answers?: number;
  @ApiPropertyOptional({ type: [EscalationStepDoc], maxItems: MAX_ESCALATION_STEPS }) escalation?: EscalationStepDoc[];
}

export class VoteDoc {
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{kind, user_id, name}' }) user!: Record<string, unknown>;
  @ApiProperty() surface!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiPropertyOptional({ description: 'Once the bundle is resolved' }) rejected?: boolean;
  @ApiPropertyOptional({ type: 'array', items: wireRef(answerWire), description: 'Once the bundle is resolved' }) answers?: AnswerWire[];
}

export class PendingIdDoc {
  @ApiProperty() pending_id!: string;
}

export class BundleDoc {
  @ApiProperty() pending_id!: string;
  @ApiProperty() session_id!: string;
  @ApiProperty() task_id!: string;
  @ApiProperty({ type: [QuestionDoc] }) questions!: QuestionDoc[];
  @ApiProperty() context!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiPropertyOptional({ allOf: [wireRef(actionWire)], description: 'Only for a bundle asked with an action: what an answer authorizes' }) action?: Action;
  @ApiPropertyOptional({ description: 'With action: SHA-256 (hex) of the RFC 8785 canonical JSON of the action' }) action_digest?: string;
  @ApiProperty({
    enum: ['pending', 'delivering', 'answered', 'rejected', 'expired', 'cancelled', 'inactive'],
    description: '`delivering`: an answer won and is being handed to the agent (not final yet); `inactive`: superseded by a newer turn',
  })
  status!: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: "The winner's response once final" })
  response!: Record<string, unknown> | null;
  @ApiProperty({ allOf: [wireRef(resolvedByWire)], nullable: true, description: 'The winner, once its answer is final' }) resolved_by!: ResolvedBy | null;
  @ApiPropertyOptional({ description: "The resolution's signed receipt (compact JWS), once final; the same one every answerer got" })
  receipt?: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'The deadline, when the bundle was asked with expires_in_seconds' })
  expires_at!: string | null;
  @ApiPropertyOptional({ description: 'A routed bundle only: whether the caller may answer it (routing.answerers)' }) eligible?: boolean;
  @ApiPropertyOptional({ allOf: [wireRef(routingViewWire)], description: 'A routed bundle only' }) routing?: RoutingView;
  @ApiPropertyOptional({ type: [VoteDoc], description: 'A routed bundle only: its votes' }) votes?: VoteDoc[];
}

export class SuccessDoc {
  @ApiProperty({ example: true }) success!: boolean;
}
