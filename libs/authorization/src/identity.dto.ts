import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateUserDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;
}

export class CreateTokenDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;
}

export class CreateBrowserSessionDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  token!: string;
}
