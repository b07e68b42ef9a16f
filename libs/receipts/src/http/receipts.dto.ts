import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

/** Far above any receipt this service signs (a few hundred bytes). */
export const RECEIPT_MAX_CHARACTERS = 8_192;

export class ActionDoc {
  @ApiProperty({ maxLength: 200, example: 'deploy' }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Any JSON object of at most 64 KB', example: { env: 'prod' } })
  arguments!: Record<string, unknown>;
}

/** POST /api/v1/receipts/verify: a receipt, and optionally the action the executor is about to run. */
export class VerifyReceiptDto {
  @ApiProperty({ description: 'The compact JWS of a receipt', maxLength: RECEIPT_MAX_CHARACTERS })
  @IsString()
  @IsNotEmpty()
  @MaxLength(RECEIPT_MAX_CHARACTERS)
  receipt!: string;

  @ApiPropertyOptional({ type: ActionDoc, description: "The action about to run: it must be the one the receipt's action_digest was signed over" })
  @IsOptional()
  @IsObject()
  action?: unknown;
}

export class AnsweredByDoc {
  @ApiProperty({ enum: ['user', 'admin', 'agent', 'synthetic'] }) kind!: string;
  @ApiProperty({ type: String, nullable: true, description: "The user's id, or the agent's session id; null for admin and synthetic" }) id!: string | null;
}

export class ReceiptClaimsDoc {
  @ApiProperty({ description: 'PUBLIC_URL, or `parley`' }) iss!: string;
  @ApiProperty({ description: 'The pending_id' }) sub!: string;
  @ApiProperty() jti!: string;
  @ApiProperty() iat!: number;
  @ApiProperty() exp!: number;
  @ApiProperty({ enum: ['answered', 'rejected'] }) outcome!: string;
  @ApiProperty({ description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of {answers, rejected}' }) answers_digest!: string;
  @ApiPropertyOptional({ description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of the action {name, arguments}; absent without an action' })
  action_digest?: string;
  @ApiProperty({ type: AnsweredByDoc }) answered_by!: AnsweredByDoc;
  @ApiProperty({ enum: ['rest', 'web', 'graphql', 'mcp', 'command'] }) surface!: string;
  @ApiProperty() session_id!: string;
  @ApiProperty() task_id!: string;
  @ApiProperty({ description: "The task's workspace ('' when none)" }) workspace_id!: string;
}

export class ReceiptVerdictDoc {
  @ApiProperty() valid!: boolean;
  @ApiPropertyOptional({ type: ReceiptClaimsDoc, description: 'When valid' }) claims?: ReceiptClaimsDoc;
  @ApiPropertyOptional({ enum: ['malformed', 'bad_signature', 'unknown_key', 'expired', 'action_mismatch'], description: 'When not valid' })
  reason?: string;
}

export class JwkDoc {
  @ApiProperty({ example: 'OKP' }) kty!: string;
  @ApiProperty({ example: 'Ed25519' }) crv!: string;
  @ApiProperty() x!: string;
  @ApiProperty() kid!: string;
  @ApiProperty({ example: 'EdDSA' }) alg!: string;
  @ApiProperty({ example: 'sig' }) use!: string;
}

export class JwksDoc {
  @ApiProperty({ type: [JwkDoc] }) keys!: JwkDoc[];
}
