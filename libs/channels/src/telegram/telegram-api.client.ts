import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type TelegramSettings } from '#config';
import { OutboundClient } from '#outbound';
import { ChatPlatformError } from '../cards/chat-platform.js';

const TIMEOUT_MS = 10_000;
const MAX_REPLY_BYTES = 4 * 1024 * 1024;

/** Telegram refused: its `description` and `error_code` (409: another getUpdates, or a webhook is set). */
export class TelegramApiError extends ChatPlatformError {
  constructor(
    readonly method: string,
    readonly errorCode: number | undefined,
    readonly description: string,
  ) {
    super(`Telegram ${method}: ${errorCode ?? ''} ${description}`.trim());
  }
}

/**
 * Telegram's Bot API (TELEGRAM_API_URL + `bot<token>/<method>`), through Parley's one outbound policy:
 * a POST of JSON, read as `{ok, result}`; anything else is a TelegramApiError.
 */
@Injectable()
export class TelegramApi {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbound: OutboundClient,
  ) {}

  private get settings(): TelegramSettings {
    const settings = this.config.chat.telegram;
    if (!settings) throw new ChatPlatformError('Telegram is not configured');
    return settings;
  }

  /** `waitMs`: how long the call may take beyond the usual bound (a long poll's own timeout). */
  async call<T>(method: string, payload: Record<string, unknown>, options: { waitMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    const settings = this.settings;
    const reply = await this.outbound.post(
      `${settings.apiUrl}bot${settings.botToken}/${method}`,
      JSON.stringify(payload),
      { 'content-type': 'application/json', 'user-agent': 'Parley-Chat/1' },
      { timeoutMs: TIMEOUT_MS + (options.waitMs ?? 0), readBodyBytes: MAX_REPLY_BYTES, ...(options.signal ? { signal: options.signal } : {}) },
    );
    // The token is part of the URL: a reason is never allowed to carry it into a log.
    if (reply.kind !== 'answered') throw new ChatPlatformError(`Telegram ${method}: ${reply.reason.replaceAll(settings.botToken, '<token>')}`);
    let body: { ok?: unknown; result?: unknown; description?: unknown; error_code?: unknown };
    try {
      body = JSON.parse(reply.body ?? '') as typeof body;
    } catch {
      throw new TelegramApiError(method, reply.status, 'not JSON');
    }
    if (body.ok !== true) {
      throw new TelegramApiError(method, typeof body.error_code === 'number' ? body.error_code : reply.status, typeof body.description === 'string' ? body.description : '');
    }
    return body.result as T;
  }
}
