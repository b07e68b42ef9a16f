import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { INPUT_LIMITS } from '../../common/src/index.js';

export class CreateUserDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.name)
  name!: string;
}

export class CreateTokenDto {
  @IsOptional()
  @IsString()
  @MaxLength(INPUT_LIMITS.name)
  name?: string;
}

export class CreateBrowserSessionDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.credential)
  token!: string;
}
