import { timingSafeEqual } from 'node:crypto';
import { Controller, Headers, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#config';
import { Public } from '#common';
import { ChatError } from '../chat.errors.js';
import { parseUpdate } from './telegram-update.js';
import { TelegramUpdateService } from './telegram-update.service.js';

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Telegram's webhook (docs/channels.md), when TELEGRAM_WEBHOOK_SECRET is set: each update must carry
 * that secret in `X-Telegram-Bot-Api-Secret-Token` (else 401, and nothing is done). 404 while Telegram
 * is not configured, or polls instead.
 */
@ApiExcludeController()
@Public()
@Controller('api/v1/connectors/telegram')
export class TelegramController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly updates: TelegramUpdateService,
  ) {}

  @Post('webhook')
  @HttpCode(200)
  async webhook(@Req() request: FastifyRequest, @Headers('x-telegram-bot-api-secret-token') secret: string | undefined) {
    const expected = this.config.chat.telegram?.webhookSecret;
    if (expected === undefined) throw ChatError.notFound('Telegram webhook');
    if (!sameSecret(secret, expected)) throw ChatError.badSignature('X-Telegram-Bot-Api-Secret-Token does not match TELEGRAM_WEBHOOK_SECRET');
    let update;
    try {
      update = Buffer.isBuffer(request.body) ? parseUpdate(JSON.parse(request.body.toString('utf8'))) : undefined;
    } catch {
      update = undefined;
    }
    if (!update) throw ChatError.invalid('body must be a Telegram Update (an object with a numeric update_id)');
    await this.updates.handle(update);
    return '';
  }
}
