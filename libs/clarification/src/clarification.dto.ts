import { IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
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
