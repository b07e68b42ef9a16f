import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { INPUT_LIMITS } from '../../common/src/index.js';

/** The envelope of a new bundle; the questions themselves are validated by the service (one rule set for every surface). */
export class CreateClarificationDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.id)
  session_id!: string;

  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  task_id?: string;

  @IsArray()
  questions!: unknown[];

  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.context)
  context?: string;

  /** Optional deadline (issue 15); its bounds are checked by the service, the same on every surface. */
  @IsOptional()
  @IsInt()
  expires_in_seconds?: number;
}

/** The respond body of the baseline; answer contents are validated by ResolveBundle (N6–N8b). */
export class RespondDto {
  @IsOptional()
  @IsArray()
  answers?: unknown[];

  @IsOptional()
  @IsBoolean()
  rejected?: boolean;

  @IsOptional()
  @IsString()
  reject_reason?: string;
}

/**
 * The query of GET /api/v1/clarification: the arguments of list_pending_questions_kandev. Their
 * rules (L7–L13: created_since, cursor, limit below 1 or above 200) belong to PendingListService.
 */
export class ListPendingQueryDto {
  @IsOptional()
  @IsString()
  workspace_id?: string;

  @IsOptional()
  @IsString()
  created_since?: string;

  @IsOptional()
  @IsString()
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;
}
