import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignature } from '#channels';
import { type FakeOptions, listen } from './fake-server.js';

/** One Web API call the fake got: the method, its JSON arguments, and the token it carried. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  token: string | undefined;
}

interface Button {
  type: string;
  action_id: string;
  value: string;
  text: { text: string };
  block_id?: string;
}

/** A message Parley posted, as Slack holds it: its channel and ts, and its current text and blocks. */
export interface SlackMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: Array<{ type: string; elements?: Button[] }>;
  /** Every version, oldest first (the post, then each chat.update). */
  versions: Array<{ text: string; blocks: unknown[] }>;
}

export interface FakeSlack {
  /** The Web API base, as SLACK_API_URL takes it. */
  apiUrl: string;
  calls: SlackCall[];
  messages: SlackMessage[];
  callsOf(method: string): SlackCall[];
  /** The buttons a message shows now. */
  buttonsOf(message: SlackMessage): Button[];
  /** The message whose buttons or open button name the bundle. */
  messagesFor(pendingId: string): SlackMessage[];
  close(): Promise<void>;
}

/**
 * Slack's Web API on 127.0.0.1, answering like Slack: `chat.postMessage` (a ts per message),
 * `chat.update` (replaces the text and blocks — without `blocks` the old ones stay, as on Slack),
 * `chat.postEphemeral`, `views.open`, `conversations.open` (a DM channel per user). A wrong token
 * gets `{ok: false, error: "invalid_auth"}`.
 */
export async function startFakeSlack(botToken: string, options: FakeOptions<SlackCall> = {}): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const messages: SlackMessage[] = [];
  let clock = 1_700_000_000;
  const answer = (method: string, args: Record<string, unknown>): Record<string, unknown> => {
    switch (method) {
      case 'chat.postMessage': {
        clock += 1;
        const message: SlackMessage = {
          channel: String(args.channel),
          ts: `${clock}.000100`,
          text: typeof args.text === 'string' ? args.text : '',
          blocks: (args.blocks as SlackMessage['blocks']) ?? [],
          versions: [],
        };
        message.versions.push({ text: message.text, blocks: message.blocks });
        messages.push(message);
        return { ok: true, channel: message.channel, ts: message.ts, message: { text: message.text } };
      }
      case 'chat.update': {
        const message = messages.find((candidate) => candidate.channel === args.channel && candidate.ts === args.ts);
        if (!message) return { ok: false, error: 'message_not_found' };
        if (typeof args.text === 'string') message.text = args.text;
        if (args.blocks !== undefined) message.blocks = args.blocks as SlackMessage['blocks'];
        message.versions.push({ text: message.text, blocks: message.blocks });
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `${clock}.000200` };
      case 'views.open':
        return { ok: true, view: { id: `V${randomUUID().slice(0, 8).toUpperCase()}` } };
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users)}` } };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const token = req.headers.authorization?.replace(/^Bearer /, '');
      let args: Record<string, unknown>;
      try {
        args = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        args = {};
      }
      const call = { method, args, token };
      calls.push(call);
      const body = token === botToken ? answer(method, args) : { ok: false, error: 'invalid_auth' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      options.onCall?.(call);
    });
  });
  await listen(server, options.port);
  const { port } = server.address() as AddressInfo;
  const buttonsOf = (message: SlackMessage) => message.blocks.flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []));
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    messages,
    callsOf: (method) => calls.filter((call) => call.method === method),
    buttonsOf,
    messagesFor: (pendingId) =>
      messages.filter((message) => message.versions.some((version) => JSON.stringify(version.blocks).includes(pendingId))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request as Slack sends it to the request URL: the form (or JSON) body and its signature headers. */
export function signedSlackRequest(
  secret: string,
  body: string,
  options: { contentType?: string; timestamp?: number; retry?: number } = {},
): { body: string; headers: Record<string, string> } {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    body,
    headers: {
      'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(secret, timestamp, body),
      ...(options.retry === undefined ? {} : { 'x-slack-retry-num': String(options.retry), 'x-slack-retry-reason': 'http_timeout' }),
    },
  };
}

/** The `payload=` form body of an interaction. */
export const interactionBody = (payload: unknown): string => new URLSearchParams({ payload: JSON.stringify(payload) }).toString();

/** The `block_actions` payload Slack sends when `user` clicks `button` on `message`. */
export function buttonClick(message: SlackMessage, button: Button, user: string, triggerId = `${randomUUID()}.trigger`): Record<string, unknown> {
  return {
    type: 'block_actions',
    trigger_id: triggerId,
    user: { id: user, username: user.toLowerCase() },
    team: { id: 'T0PARLEY' },
    channel: { id: message.channel },
    container: { type: 'message', channel_id: message.channel, message_ts: message.ts },
    message: { ts: message.ts, text: message.text },
    actions: [{ type: 'button', action_id: button.action_id, value: button.value, action_ts: `${Date.now() / 1000}` }],
  };
}

/**
 * The `block_actions` payload Slack sends when `user` clicks Submit on a multi-select card after
 * ticking `ticked`: the Submit button's action, with the message's checkboxes in `state.values` as
 * that person left them.
 */
export function ticksSubmitted(message: SlackMessage, user: string, ticked: string[], triggerId = `${randomUUID()}.trigger`): Record<string, unknown> {
  const block = message.blocks.find((candidate) => candidate.type === 'actions' && candidate.elements?.some((element) => element.type === 'checkboxes')) as
    | { block_id: string; elements: Array<Button & { options?: Array<{ value: string; text: { text: string } }> }> }
    | undefined;
  const checkboxes = block?.elements.find((element) => element.type === 'checkboxes');
  const submit = block?.elements.find((element) => element.type === 'button');
  if (!block || !checkboxes || !submit) throw new Error('the message has no checkboxes and Submit');
  const options = (checkboxes.options ?? []).filter((option) => ticked.includes(option.value));
  return {
    ...buttonClick(message, submit, user, triggerId),
    state: { values: { [block.block_id]: { [checkboxes.action_id]: { type: 'checkboxes', selected_options: options } } } },
  };
}
