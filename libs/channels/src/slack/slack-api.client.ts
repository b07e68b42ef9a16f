import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type SlackSettings } from '#config';
import { OutboundClient } from '#outbound';
import { ChatPlatformError } from '../cards/chat-platform.js';

const TIMEOUT_MS = 10_000;
const MAX_REPLY_BYTES = 1024 * 1024;

/**
 * Slack's Web API (SLACK_API_URL + method), called through Parley's one outbound policy: a POST of
 * JSON with the bot token, read as `{ok, …}`; anything but `ok: true` is a ChatPlatformError.
 */
@Injectable()
export class SlackApi {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbound: OutboundClient,
  ) {}

  private get settings(): SlackSettings {
    const settings = this.config.chat.slack;
    if (!settings) throw new ChatPlatformError('Slack is not configured');
    return settings;
  }

  async call<T extends object = Record<string, unknown>>(method: string, payload: Record<string, unknown>): Promise<T> {
    const settings = this.settings;
    const reply = await this.outbound.post(
      `${settings.apiUrl}${method}`,
      JSON.stringify(payload),
      { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${settings.botToken}`, 'user-agent': 'Parley-Chat/1' },
      { timeoutMs: TIMEOUT_MS, readBodyBytes: MAX_REPLY_BYTES },
    );
    if (reply.kind !== 'answered') throw new ChatPlatformError(`Slack ${method}: ${reply.reason}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.body ?? '');
    } catch {
      throw new ChatPlatformError(`Slack ${method}: HTTP ${reply.status}, not JSON`);
    }
    const body = parsed as { ok?: unknown; error?: unknown };
    if (body.ok !== true) throw new ChatPlatformError(`Slack ${method}: ${typeof body.error === 'string' ? body.error : `HTTP ${reply.status}`}`);
    return parsed as T;
  }
}
