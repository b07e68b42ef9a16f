import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { INPUT_LIMITS } from '#common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CreateUserDto {
  @ApiProperty({ maxLength: INPUT_LIMITS.name })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.name)
  name!: string;
}

export class CreateTokenDto {
  @ApiPropertyOptional({ maxLength: INPUT_LIMITS.name })
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.name)
  name?: string;
}

export class CreateBrowserSessionDto {
  @ApiProperty({ description: 'A personal access token (parley_pat_…)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.credential)
  token!: string;
}
