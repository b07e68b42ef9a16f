import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { INPUT_LIMITS } from '#common';
import { MAX_SECRET_LENGTH, MIN_SECRET_LENGTH } from './webhook-subscription.service.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from '../webhook.types.js';

/*
 * The documented schemas say what the ValidationPipe checks (the class-validator rules) and what
 * WebhookSubscriptionService then refuses with a 400 (its rules, one set for every surface). No
 * example URL: schemathesis sends examples, and a subscription to a real host would be delivered to.
 */
const URL_DOC = {
  type: String,
  minLength: 1,
  maxLength: INPUT_LIMITS.url,
  description:
    'An absolute http:// or https:// URL without credentials; a loopback, private or link-local target is refused unless OUTBOUND_ALLOW_PRIVATE_TARGETS=true',
} as const;
const EVENTS_DOC = {
  type: String,
  isArray: true,
  enum: WEBHOOK_EVENT_TYPES,
  enumName: 'WebhookEventType',
  minItems: 1,
  description: 'The question events to deliver (a repeated one counts once)',
} as const;
const FORMAT_DOC = {
  enum: WEBHOOK_FORMATS,
  enumName: 'WebhookFormat',
  description: 'json: signed Parley JSON; slack: a Slack incoming-webhook message',
} as const;

/** POST /api/v1/workspaces/:id/webhooks; the values' rules belong to WebhookSubscriptionService (one rule set for every surface). */
export class CreateWebhookDto {
  @ApiProperty(URL_DOC)
  @IsString()
  url!: string;

  @ApiProperty(EVENTS_DOC)
  @IsArray()
  events!: unknown[];

  // Not `default: 'json'`: openapi-typescript would make the field required in the client's types.
  @ApiPropertyOptional({ ...FORMAT_DOC, description: `${FORMAT_DOC.description} (json when left out)` })
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: string;

  @ApiPropertyOptional({
    minLength: MIN_SECRET_LENGTH,
    maxLength: MAX_SECRET_LENGTH,
    description: 'The signing secret; generated (whsec_…) when left out. Returned once, by this call',
  })
  @IsOptional()
  @IsString()
  secret?: string;
}

/** PATCH /api/v1/webhooks/:id: any of the fields; `enabled: true` re-enables a disabled subscription. */
export class UpdateWebhookDto {
  @ApiPropertyOptional(URL_DOC)
  @IsOptional()
  @IsString()
  url?: string;

  @ApiPropertyOptional(EVENTS_DOC)
  @IsOptional()
  @IsArray()
  events?: unknown[];

  @ApiPropertyOptional(FORMAT_DOC)
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: string;

  @ApiPropertyOptional({ description: 'false disables the subscription; true re-enables it and queues its held-back deliveries again' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
