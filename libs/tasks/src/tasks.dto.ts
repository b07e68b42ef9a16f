import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { INPUT_LIMITS } from '../../common/src/index.js';
import { SessionState } from './session-state.js';

export class CreateWorkspaceDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.name)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  owner_id?: string;
}

export class CreateTaskDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.title)
  title!: string;

  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  workspace_id?: string;
}

export class ListTasksQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.id)
  workspace_id?: string;
}

export class CreateSessionDto {
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @MaxLength(INPUT_LIMITS.url)
  resume_url?: string;
}

export class UpdateSessionDto {
  @IsEnum(SessionState, { message: `state must be one of ${Object.values(SessionState).join(', ')}` })
  state!: SessionState;
}

export class ListMessagesQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  cursor?: string;
}
