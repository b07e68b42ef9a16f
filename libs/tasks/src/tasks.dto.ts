import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { SessionState } from './session-state.js';

export class CreateWorkspaceDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  owner_id?: string;
}

export class CreateTaskDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  title!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  workspace_id?: string;
}

export class ListTasksQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  workspace_id?: string;
}

export class CreateSessionDto {
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @MaxLength(2000)
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
