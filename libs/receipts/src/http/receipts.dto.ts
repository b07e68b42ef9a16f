import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { RESOLUTION_SURFACES } from '#common';
import { ACTION_DOC_REF } from '../action/action.types.js';

/** Far above any receipt this service signs (a few hundred bytes). */
export const RECEIPT_MAX_CHARACTERS = 8_192;

/** POST /api/v1/receipts/verify: a receipt, and optionally the action the executor is about to run. */
export class VerifyReceiptDto {
  @ApiProperty({ description: 'The compact JWS of a receipt', maxLength: RECEIPT_MAX_CHARACTERS })
  @IsString()
  @IsNotEmpty()
  @MaxLength(RECEIPT_MAX_CHARACTERS)
  receipt!: string;

  @ApiPropertyOptional({ allOf: [ACTION_DOC_REF], description: "The action about to run: it must be the one the receipt's action_digest was signed over" })
  @IsOptional()
  @IsObject()
  action?: unknown;

  @ApiPropertyOptional({ type: () => ReceiptExpectationDoc, description: 'What the receipt must say (each field given must hold), else expectation_mismatch' })
  @IsOptional()
  @IsObject()
  expect?: unknown;
}

/** POST /api/v1/receipts/redeem: spend a receipt, once, for the action about to run. */
export class RedeemReceiptDto {
  @ApiProperty({ description: 'The compact JWS of a receipt', maxLength: RECEIPT_MAX_CHARACTERS })
  @IsString()
  @IsNotEmpty()
  @MaxLength(RECEIPT_MAX_CHARACTERS)
  receipt!: string;

  @ApiProperty({ allOf: [ACTION_DOC_REF], description: "The action about to run: it must be the one the receipt's action_digest was signed over" })
  @IsObject()
  action!: unknown;

  @ApiPropertyOptional({ type: () => ReceiptExpectationDoc, description: 'What the receipt must say (each field given must hold), else expectation_mismatch' })
  @IsOptional()
  @IsObject()
  expect?: unknown;
}

export class AnsweredByDoc {
  @ApiProperty({ enum: ['user', 'admin', 'agent', 'synthetic'] }) kind!: string;
  @ApiProperty({ type: String, nullable: true, description: "The user's id, or the agent's session id; null for admin and synthetic" }) id!: string | null;
}

const SELECTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  description: 'Option ids chosen, per question id',
  example: { go: ['yes'] },
} as const;

export class ReceiptExpectationDoc {
  @ApiPropertyOptional() pending_id?: string;
  @ApiPropertyOptional({ enum: ['answered', 'rejected'] }) outcome?: string;
  @ApiPropertyOptional({ ...SELECTIONS_SCHEMA, description: 'For each question named: exactly these options were chosen' }) selections?: Record<string, string[]>;
  @ApiPropertyOptional({ type: AnsweredByDoc }) asked_by?: AnsweredByDoc;
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
  @ApiProperty({ ...SELECTIONS_SCHEMA, description: 'Option ids chosen, per question id ({} for a rejection; free text is never in a receipt)' }) selections!: Record<string, string[]>;
  @ApiProperty({ type: AnsweredByDoc, description: "Who asked: the session's agent, the identity that opened the session, or an admin" }) asked_by!: AnsweredByDoc;
  @ApiProperty({ type: AnsweredByDoc }) answered_by!: AnsweredByDoc;
  @ApiProperty({ enum: [...RESOLUTION_SURFACES] }) surface!: string;
  @ApiProperty() session_id!: string;
  @ApiProperty() task_id!: string;
  @ApiProperty({ description: "The task's workspace ('' when none)" }) workspace_id!: string;
}

const INVALID_REASONS = ['malformed', 'bad_signature', 'unknown_key', 'expired', 'action_mismatch', 'expectation_mismatch', 'revoked'];

export class ReceiptVerdictDoc {
  @ApiProperty() valid!: boolean;
  @ApiPropertyOptional({ type: ReceiptClaimsDoc, description: 'When valid' }) claims?: ReceiptClaimsDoc;
  @ApiPropertyOptional({ enum: INVALID_REASONS, description: 'When not valid' })
  reason?: string;
  @ApiPropertyOptional({ type: [String], description: 'With expectation_mismatch: the expectation fields that do not hold (`outcome`, `selections.<question id>`, …)' })
  mismatch?: string[];
}

export class RedemptionDoc {
  @ApiProperty({ description: 'True exactly once per receipt' }) redeemed!: boolean;
  @ApiPropertyOptional({ type: ReceiptClaimsDoc, description: 'When redeemed' }) claims?: ReceiptClaimsDoc;
  @ApiPropertyOptional({ enum: [...INVALID_REASONS, 'already_redeemed'], description: 'When not redeemed' })
  reason?: string;
  @ApiPropertyOptional({ type: [String], description: 'With expectation_mismatch: the expectation fields that do not hold' })
  mismatch?: string[];
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
