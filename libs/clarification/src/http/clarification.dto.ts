import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { INPUT_LIMITS } from '#common';
import { actionWire } from '#receipts';
import { RoutingDoc } from './clarification.openapi.js';
import { askedQuestionWire, MAX_QUESTIONS } from '../wire/bundle-read.wire.js';
import { answerWire } from '../wire/resolution.wire.js';
import { clarificationWire } from '../wire/wire-openapi.js';

/** The envelope of a new bundle; the questions themselves are validated by the service (one rule set for every surface). */
export class CreateClarificationDto {
  @ApiProperty({ maxLength: INPUT_LIMITS.id })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.id)
  session_id!: string;

  @ApiPropertyOptional({ description: "Must be the session's task when given" })
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  task_id?: string;

  @ApiProperty({ type: 'array', items: clarificationWire.ref(askedQuestionWire), minItems: 1, maxItems: MAX_QUESTIONS })
  @IsArray()
  questions!: unknown[];

  @ApiPropertyOptional({ maxLength: INPUT_LIMITS.context })
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.context)
  context?: string;

  /** Optional deadline; its bounds are checked by the service, the same on every surface. */
  @ApiPropertyOptional({ minimum: 1, maximum: 2592000, description: 'Seconds until the bundle expires unanswered (1 to 30 days)' })
  @IsOptional()
  @IsInt()
  expires_in_seconds?: number;

  /** Optional routing (answerers, required_answers, escalation); validated by the service, the same on every surface. */
  @ApiPropertyOptional({ type: RoutingDoc })
  @IsOptional()
  routing?: unknown;

  /** Optional action the answer authorizes (name ≤ 200 characters, arguments a JSON object ≤ 64 KB); validated by the service. */
  @ApiPropertyOptional({ allOf: [clarificationWire.ref(actionWire)], description: 'The action an answer authorizes; its digest is signed into the receipt' })
  @IsOptional()
  action?: unknown;
}

/** The respond body of the baseline; answer contents are validated by ResolveBundle (N6–N8b). */
export class RespondDto {
  @ApiPropertyOptional({ type: 'array', items: clarificationWire.ref(answerWire), description: 'One answer per question of the bundle (unless rejected)' })
  @IsOptional()
  @IsArray()
  answers?: unknown[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  rejected?: boolean;

  @ApiPropertyOptional({ description: 'At most 2000 code points' })
  @IsOptional()
  @IsString()
  reject_reason?: string;
}

/**
 * The query of GET /api/v1/clarification: the arguments of list_pending_questions_kandev. Their
 * rules (L7–L13: created_since, cursor, limit below 1 or above 200) belong to PendingListService.
 */
export class ListPendingQueryDto {
  @ApiPropertyOptional({ description: 'Only the bundles of this workspace' })
  @IsOptional()
  @IsString()
  workspace_id?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'RFC 3339; only bundles created at or after it' })
  @IsOptional()
  @IsString()
  created_since?: string;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50, description: 'Page size (spec L10: absent or below 1 means 50; above 200 is clamped to 200, not refused)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;
}
