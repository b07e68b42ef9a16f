import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { INPUT_LIMITS, LIST_PAGE, PageQueryDto } from '#common';
import { SessionState } from './session/session-state.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CreateWorkspaceDto {
  @ApiProperty({ maxLength: INPUT_LIMITS.name })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.name)
  name!: string;

  @ApiPropertyOptional({ description: 'Admin only: the owning user (default: the caller; none for an admin)' })
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  owner_id?: string;
}

export class CreateTaskDto {
  @ApiProperty({ maxLength: INPUT_LIMITS.title })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.title)
  title!: string;

  @ApiPropertyOptional({ description: 'A workspace the caller may see' })
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  workspace_id?: string;
}

export class ListTasksQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the tasks of this workspace' })
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  workspace_id?: string;
}

export class CreateSessionDto {
  @ApiPropertyOptional({ description: 'Webhook POSTed when an answer resumes the agent (else RESUME_WEBHOOK_URL, else a queued prompt)' })
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @MaxLength(INPUT_LIMITS.url)
  resume_url?: string;
}

export class UpdateSessionDto {
  @ApiProperty({ enum: SessionState, enumName: 'SessionState' })
  @IsEnum(SessionState, { message: `state must be one of ${Object.values(SessionState).join(', ')}` })
  state!: SessionState;
}

export class ListMessagesQueryDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: LIST_PAGE.maxLimit,
    default: LIST_PAGE.defaultLimit,
    description: `Page size; above ${LIST_PAGE.maxLimit} is a 400 naming \`limit\``,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(LIST_PAGE.maxLimit)
  limit?: number;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  cursor?: string;
}
