import { IsArray, IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { WEBHOOK_FORMATS } from './webhook.types.js';

/** POST /api/v1/workspaces/:id/webhooks; the values' rules belong to WebhookSubscriptionService (one rule set for every surface). */
export class CreateWebhookDto {
  @IsString()
  url!: string;

  @IsArray()
  events!: unknown[];

  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: string;

  @IsOptional()
  @IsString()
  secret?: string;
}

/** PATCH /api/v1/webhooks/:id: any of the fields; `enabled: true` re-enables a disabled subscription. */
export class UpdateWebhookDto {
  @IsOptional()
  @IsString()
  url?: string;

  @IsOptional()
  @IsArray()
  events?: unknown[];

  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: string;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

