import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiClosedSchema, INPUT_LIMITS } from '#common';
import { ActionDoc } from '#receipts';
import { MAX_ANSWERERS, MAX_ESCALATION_SECONDS, MAX_ESCALATION_STEPS, MAX_REQUIRED_ANSWERS, MIN_ESCALATION_SECONDS } from '../routing/routing.validation.js';

/**
 * OpenAPI schemas of the clarification REST surface (request bodies are validated by the services; see
 * README). The parts of a request a service checks say its limits, and refuse fields they do not name.
 */
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
export class AnswerDoc {
  @ApiProperty({ minLength: 1 }) question_id!: string;
  @ApiProperty({ type: [String] }) selected_options!: string[];
  @ApiProperty({ maxLength: INPUT_LIMITS.answerText, description: `At most ${INPUT_LIMITS.answerText} code points` }) custom_text!: string;
}

@ApiClosedSchema()
export class UserIdsDoc {
  @ApiProperty({ type: 'array', items: { type: 'string', minLength: 1, maxLength: INPUT_LIMITS.id }, minItems: 1, maxItems: MAX_ANSWERERS, uniqueItems: true }) user_ids!: string[];
}

@ApiClosedSchema()
export class EscalationStepDoc {
  @ApiProperty({ type: 'integer', minimum: MIN_ESCALATION_SECONDS, maximum: MAX_ESCALATION_SECONDS, description: 'Seconds after the ask; strictly increasing from step to step' })
  after_seconds!: number;
  @ApiPropertyOptional({ description: 'true: emit a REMINDED event naming the eligible users' }) remind?: boolean;
  @ApiPropertyOptional({ type: UserIdsDoc, description: 'Replace the eligible answerers (an ESCALATED event)' }) reassign_to?: UserIdsDoc;
}

@ApiClosedSchema()
export class RoutingDoc {
  @ApiPropertyOptional({ type: UserIdsDoc, description: 'Only these users (and an admin) may answer; others who see the bundle get 403 NOT_ELIGIBLE' })
  answerers?: UserIdsDoc;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_REQUIRED_ANSWERS, default: 1, description: 'Identical answers from this many people resolve the bundle' })
  required_answers?: number;
  @ApiPropertyOptional({ type: [EscalationStepDoc], maxItems: MAX_ESCALATION_STEPS }) escalation?: EscalationStepDoc[];
}

export class AssignedUserDoc {
  @ApiProperty() user_id!: string;
  @ApiProperty() name!: string;
}

export class RoutingViewDoc {
  @ApiProperty({ type: UserIdsDoc, nullable: true, description: 'null: whoever sees the bundle may answer' }) answerers!: UserIdsDoc | null;
  @ApiProperty({ type: [AssignedUserDoc] }) assigned_to!: AssignedUserDoc[];
  @ApiProperty() required_answers!: number;
}

export class VoteDoc {
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{kind, user_id, name}' }) user!: Record<string, unknown>;
  @ApiProperty() surface!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiPropertyOptional({ description: 'Once the bundle is resolved' }) rejected?: boolean;
  @ApiPropertyOptional({ type: [AnswerDoc], description: 'Once the bundle is resolved' }) answers?: AnswerDoc[];
}

export class VoteReceiptDoc {
  @ApiProperty({ description: 'The same voter sent the same answer again' }) replayed!: boolean;
  @ApiProperty() votes!: number;
  @ApiProperty() required_answers!: number;
}

export class PendingIdDoc {
  @ApiProperty() pending_id!: string;
}

export class ResolvedByDoc {
  @ApiProperty({ enum: ['user', 'admin', 'agent', 'synthetic'] }) kind!: string;
  @ApiProperty({ nullable: true, type: String }) user_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
  @ApiProperty({ enum: ['web', 'rest', 'mcp', 'mcp_app', 'graphql', 'command', 'slack', 'telegram'] }) surface!: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
}

export class BundleDoc {
  @ApiProperty() pending_id!: string;
  @ApiProperty() session_id!: string;
  @ApiProperty() task_id!: string;
  @ApiProperty({ type: [QuestionDoc] }) questions!: QuestionDoc[];
  @ApiProperty() context!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiPropertyOptional({ type: ActionDoc, description: 'Only for a bundle asked with an action: what an answer authorizes' }) action?: ActionDoc;
  @ApiPropertyOptional({ description: 'With action: SHA-256 (hex) of the RFC 8785 canonical JSON of the action' }) action_digest?: string;
  @ApiProperty({
    enum: ['pending', 'delivering', 'answered', 'rejected', 'expired', 'cancelled', 'inactive'],
    description: '`delivering`: an answer won and is being handed to the agent (not final yet); `inactive`: superseded by a newer turn',
  })
  status!: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: "The winner's response once final" })
  response!: Record<string, unknown> | null;
  @ApiProperty({ type: ResolvedByDoc, nullable: true, description: 'The winner, once its answer is final' }) resolved_by!: ResolvedByDoc | null;
  @ApiPropertyOptional({ description: "The resolution's signed receipt (compact JWS), once final; the same one every answerer got" })
  receipt?: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'The deadline, when the bundle was asked with expires_in_seconds' })
  expires_at!: string | null;
  @ApiPropertyOptional({ description: 'A routed bundle only: whether the caller may answer it (routing.answerers)' }) eligible?: boolean;
  @ApiPropertyOptional({ type: RoutingViewDoc, description: 'A routed bundle only' }) routing?: RoutingViewDoc;
  @ApiPropertyOptional({ type: [VoteDoc], description: 'A routed bundle only: its votes' }) votes?: VoteDoc[];
}

export class ResolutionResponseDoc {
  @ApiProperty({ type: [AnswerDoc] }) answers!: AnswerDoc[];
  @ApiProperty() rejected!: boolean;
  @ApiProperty({ description: 'Always "" on a replay (the reason is not stored)' }) reject_reason!: string;
}

export class RespondResultDoc {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ description: 'true: this call won the claim; false: another answer won first (its answer is reported)' }) claimed!: boolean;
  @ApiProperty({ enum: ['answered', 'rejected', 'pending'], description: 'pending: a vote of a routed bundle, recorded; not resolved yet' }) status!: string;
  @ApiProperty({ type: ResolutionResponseDoc }) response!: ResolutionResponseDoc;
  @ApiPropertyOptional({ type: VoteReceiptDoc, description: 'Only for a vote that did not resolve the bundle' }) vote?: VoteReceiptDoc;
  @ApiProperty({ type: String, nullable: true, description: "The resolution's signed receipt — the same for the winner and every loser; null for a vote that did not resolve the bundle" })
  receipt!: string | null;
}

export class ClarificationResponseDoc {
  @ApiProperty() pending_id!: string;
  @ApiProperty({ type: [AnswerDoc] }) answers!: AnswerDoc[];
  @ApiProperty() rejected!: boolean;
  @ApiProperty() reject_reason!: string;
  @ApiProperty({ format: 'date-time' }) responded_at!: string;
  @ApiPropertyOptional({ description: "The resolution's signed receipt (compact JWS)" }) receipt?: string;
}

export class PendingQuestionDoc {
  @ApiProperty() question_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() prompt!: string;
  @ApiProperty() status!: string;
  @ApiProperty({ type: [OptionDoc] }) options!: OptionDoc[];
}

export class PendingBundleDoc {
  @ApiProperty() pending_id!: string;
  @ApiProperty() task_id!: string;
  @ApiProperty() session_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty() age_seconds!: number;
  @ApiProperty() context!: string;
  @ApiProperty({ type: [PendingQuestionDoc] }) questions!: PendingQuestionDoc[];
  @ApiPropertyOptional({ type: ActionDoc, description: 'Only for a bundle asked with an action: what an answer authorizes' }) action?: ActionDoc;
  @ApiPropertyOptional({ description: 'With action: SHA-256 (hex) of the RFC 8785 canonical JSON of the action' }) action_digest?: string;
  @ApiPropertyOptional({ description: 'A routed bundle only: whether the caller may answer it' }) eligible?: boolean;
  @ApiPropertyOptional({ type: RoutingViewDoc, description: 'A routed bundle only' }) routing?: RoutingViewDoc;
}

export class PendingPageDoc {
  @ApiProperty({ type: [PendingBundleDoc] }) bundles!: PendingBundleDoc[];
  @ApiProperty() count!: number;
  @ApiProperty({ description: 'Pass as `cursor` for the next page; "" on the last page' }) next_cursor!: string;
}

export class SuccessDoc {
  @ApiProperty({ example: true }) success!: boolean;
}
