import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI schemas of the identity routes' responses. */
export class CreatedUserDoc {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

export class CreatedTokenDoc {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'parley_pat_… — shown once' }) token!: string;
}

export class RevokedTokenDoc {
  @ApiProperty() id!: string;
  @ApiProperty({ format: 'date-time' }) revoked_at!: string;
}

export class SessionSuccessDoc {
  @ApiProperty({ example: true }) success!: boolean;
}

class CallerDoc {
  @ApiProperty({ enum: ['user', 'admin', 'synthetic', 'agent'] }) kind!: string;
  @ApiProperty({ type: String, nullable: true }) user_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
}

export class CallerViewDoc {
  @ApiProperty({ enum: ['enabled', 'disabled'] }) auth_mode!: string;
  @ApiProperty({ type: CallerDoc }) caller!: CallerDoc;
}
