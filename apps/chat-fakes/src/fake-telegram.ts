import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeOptions, listen } from './fake-server.js';

type Keyboard = { inline_keyboard: { text: string; callback_data?: string }[][] };

/** A message the bot sent, as Telegram holds it (its current text and keyboard, and each version). */
export interface TelegramMessage {
  chatId: string;
  messageId: number;
  text: string;
  keyboard: Keyboard | undefined;
  versions: Array<{ text: string; keyboard: Keyboard | undefined }>;
}

export interface TelegramCall {
  method: string;
  args: Record<string, unknown>;
}

export interface FakeTelegram {
  /** The Bot API base, as TELEGRAM_API_URL takes it. */
  apiUrl: string;
  calls: TelegramCall[];
  messages: TelegramMessage[];
  /** getUpdates calls refused with 409 because another one was in flight (two pollers). */
  conflicts: number;
  callsOf(method: string): TelegramCall[];
  messagesFor(pendingId: string): TelegramMessage[];
  /** Queues an update for getUpdates (numbered when it has no update_id); returns it. */
  push(update: Record<string, unknown>): Record<string, unknown>;
  /** Queues the same update again, so that one batch carries it twice (as when an offset was never confirmed). */
  redeliver(update: Record<string, unknown>): void;
  /** The update Telegram sends when `fromId` presses the message's button `index`, not yet queued. */
  pressUpdate(message: TelegramMessage, index: number, fromId: number): Record<string, unknown>;
  /** The same, queued for getUpdates. */
  press(message: TelegramMessage, index: number, fromId: number): Record<string, unknown>;
  buttonsOf(message: TelegramMessage): { text: string; callback_data?: string }[];
  close(): Promise<void>;
}

/**
 * Telegram's Bot API on 127.0.0.1, answering like Telegram: `getUpdates` long-polls (held until an
 * update is queued or its timeout passes; a second concurrent one gets 409), `sendMessage`,
 * `editMessageText` (without reply_markup the keyboard goes; an edit that changes nothing is a 400
 * "message is not modified"), `answerCallbackQuery`. A wrong token gets 401.
 */
export async function startFakeTelegram(botToken: string, options: FakeOptions<TelegramCall> = {}): Promise<FakeTelegram> {
  const calls: TelegramCall[] = [];
  const messages: TelegramMessage[] = [];
  const updates: Array<Record<string, unknown> & { update_id: number }> = [];
  let nextUpdateId = 500_000;
  let nextMessageId = 100;
  let polling: { offset: number; reply: (result: unknown[]) => void; timer: NodeJS.Timeout } | undefined;
  const fake = { conflicts: 0 };

  const pending = (offset: number) => updates.filter((update) => update.update_id >= offset);
  const wakePoller = () => {
    if (!polling) return;
    const ready = pending(polling.offset);
    if (ready.length === 0) return;
    const { reply, timer } = polling;
    polling = undefined;
    clearTimeout(timer);
    reply(ready);
  };

  const answer = (method: string, args: Record<string, unknown>): { status: number; body: Record<string, unknown> } => {
    const ok = (result: unknown) => ({ status: 200, body: { ok: true, result } });
    const fail = (status: number, description: string) => ({ status, body: { ok: false, error_code: status, description } });
    switch (method) {
      case 'sendMessage': {
        const message: TelegramMessage = {
          chatId: String(args.chat_id),
          messageId: (nextMessageId += 1),
          text: typeof args.text === 'string' ? args.text : '',
          keyboard: args.reply_markup as Keyboard | undefined,
          versions: [],
        };
        message.versions.push({ text: message.text, keyboard: message.keyboard });
        messages.push(message);
        return ok({ message_id: message.messageId, chat: { id: Number(message.chatId) }, text: message.text });
      }
      case 'editMessageText': {
        const message = messages.find((candidate) => candidate.chatId === String(args.chat_id) && candidate.messageId === args.message_id);
        if (!message) return fail(400, 'Bad Request: message to edit not found');
        const text = typeof args.text === 'string' ? args.text : '';
        const keyboard = args.reply_markup as Keyboard | undefined;
        if (text === message.text && JSON.stringify(keyboard) === JSON.stringify(message.keyboard)) {
          return fail(400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same');
        }
        message.text = text;
        message.keyboard = keyboard;
        message.versions.push({ text, keyboard });
        return ok({ message_id: message.messageId, chat: { id: Number(message.chatId) }, text });
      }
      case 'answerCallbackQuery':
        return ok(true);
      default:
        return fail(404, 'Not Found: method not found');
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? '');
      let args: Record<string, unknown>;
      try {
        args = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        args = {};
      }
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (!match || match[1] !== botToken) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = match[2];
      const call = { method, args };
      calls.push(call);
      if (method !== 'getUpdates') {
        const { status, body } = answer(method, args);
        send(status, body);
        return options.onCall?.(call);
      }
      if (polling) {
        fake.conflicts += 1;
        return send(409, { ok: false, error_code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' });
      }
      const offset = typeof args.offset === 'number' ? args.offset : 0;
      // Telegram forgets what an offset confirms.
      updates.splice(0, updates.length, ...updates.filter((update) => update.update_id >= offset));
      const reply = (result: unknown[]) => send(200, { ok: true, result });
      const ready = pending(offset);
      if (ready.length > 0) return reply(ready);
      const waitMs = (typeof args.timeout === 'number' ? args.timeout : 0) * 1000;
      const timer = setTimeout(() => {
        polling = undefined;
        reply([]);
      }, waitMs);
      polling = { offset, reply, timer };
      res.once('close', () => {
        if (polling?.reply === reply) {
          clearTimeout(timer);
          polling = undefined;
        }
      });
    });
  });
  await listen(server, options.port);
  const { port } = server.address() as AddressInfo;
  const push = (update: Record<string, unknown>) => {
    const numbered = { ...update, update_id: typeof update.update_id === 'number' ? update.update_id : (nextUpdateId += 1) };
    updates.push(numbered);
    wakePoller();
    return numbered;
  };
  const buttonsOf = (message: TelegramMessage) => message.keyboard?.inline_keyboard.flat() ?? [];
  const pressUpdate = (message: TelegramMessage, index: number, fromId: number) => {
    nextUpdateId += 1;
    return {
      update_id: nextUpdateId,
      callback_query: {
        id: `cbq-${nextUpdateId}`,
        from: { id: fromId, is_bot: false, first_name: `user${fromId}` },
        chat_instance: '1',
        message: { message_id: message.messageId, chat: { id: Number(message.chatId), type: 'group' }, text: message.text },
        data: buttonsOf(message)[index]?.callback_data,
      },
    };
  };
  return {
    apiUrl: `http://127.0.0.1:${port}/`,
    calls,
    messages,
    get conflicts() {
      return fake.conflicts;
    },
    callsOf: (method) => calls.filter((call) => call.method === method),
    messagesFor: (pendingId) => messages.filter((message) => message.versions.some((version) => JSON.stringify(version).includes(pendingId))),
    push,
    redeliver: (update) => {
      updates.push(update as Record<string, unknown> & { update_id: number }, update as Record<string, unknown> & { update_id: number });
      wakePoller();
    },
    pressUpdate,
    press: (message, index, fromId) => push(pressUpdate(message, index, fromId)),
    buttonsOf,
    close: () =>
      new Promise<void>((resolve) => {
        if (polling) {
          clearTimeout(polling.timer);
          polling.reply([]);
          polling = undefined;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
