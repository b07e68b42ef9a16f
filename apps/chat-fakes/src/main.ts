import readline from 'node:readline';
import { buttonClick, interactionBody, signedSlackRequest, type SlackCall, type SlackMessage, startFakeSlack } from './fake-slack.js';
import { startFakeTelegram, type TelegramCall, type TelegramMessage } from './fake-telegram.js';

/**
 * `npm run chat:fakes`: Slack's Web API and Telegram's Bot API on 127.0.0.1, for trying chat without
 * either. It prints the environment `npm start` needs, shows every card Parley posts or edits, and
 * takes a click from the keyboard: `slack <card> <button> <Slack user id>` signs and posts the
 * `block_actions` to Parley's request URL, as Slack does; `telegram <card> <button> <Telegram user id>`
 * queues the `callback_query` for Parley's `getUpdates`, as Telegram does.
 */
const SLACK_TOKEN = 'xoxb-parley-fake';
const SLACK_SECRET = 'parley-fake-signing-secret';
const SLACK_CHANNEL = 'C0PARLEY';
const TELEGRAM_TOKEN = '1000:parley-fake';
const TELEGRAM_CHAT = '-1001000';

const say = (line: string) => process.stdout.write(`${line}\n`);
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** The text a Block Kit card shows: its sections' and contexts' text, one line each. */
function blockText(message: SlackMessage): string[] {
  const blocks = message.blocks as Array<{ type: string; text?: { text?: string }; elements?: Array<{ text?: string | { text?: string } }> }>;
  return blocks.flatMap((block) => {
    if (block.type === 'section' || block.type === 'header') return block.text?.text ? [block.text.text] : [];
    if (block.type === 'context') return (block.elements ?? []).flatMap((element) => (typeof element.text === 'string' ? [element.text] : []));
    return [];
  });
}

async function main(): Promise<void> {
  const parleyUrl = (process.env.PARLEY_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const shown = new Map<SlackMessage | TelegramMessage, number>();
  /** Prints the cards that changed since they were last printed. */
  const showCards = () => {
    slack.messages.forEach((message, index) => {
      if (shown.get(message) === message.versions.length) return;
      say(`\n[slack card ${index + 1}] ${shown.has(message) ? 'edited' : 'posted'} in ${message.channel}`);
      shown.set(message, message.versions.length);
      for (const line of blockText(message)) say(`  ${line.replace(/\n/g, '\n  ')}`);
      slack.buttonsOf(message).forEach((button, at) => say(`  (${at + 1}) ${button.text.text}  →  slack ${index + 1} ${at + 1} <SLACK_USER_ID>`));
    });
    telegram.messages.forEach((message, index) => {
      if (shown.get(message) === message.versions.length) return;
      say(`\n[telegram card ${index + 1}] ${shown.has(message) ? 'edited' : 'posted'} in ${message.chatId}`);
      shown.set(message, message.versions.length);
      say(`  ${message.text.replace(/\n/g, '\n  ')}`);
      telegram.buttonsOf(message).forEach((button, at) => say(`  (${at + 1}) ${button.text}  →  telegram ${index + 1} ${at + 1} <TELEGRAM_USER_ID>`));
    });
  };
  const onSlackCall = (call: SlackCall) => {
    if (call.method === 'chat.postEphemeral') say(`\n[slack note to ${String(call.args.user)}] ${String(call.args.text)}`);
    showCards();
  };
  const onTelegramCall = (call: TelegramCall) => {
    if (call.method === 'answerCallbackQuery' && typeof call.args.text === 'string') say(`\n[telegram note] ${call.args.text}`);
    showCards();
  };
  const slack = await startFakeSlack(SLACK_TOKEN, { port: port('CHAT_FAKES_SLACK_PORT', 3101), onCall: onSlackCall });
  const telegram = await startFakeTelegram(TELEGRAM_TOKEN, { port: port('CHAT_FAKES_TELEGRAM_PORT', 3102), onCall: onTelegramCall });

  say('Fake Slack and Telegram are listening. Start Parley with:');
  say(`export SLACK_API_URL=${slack.apiUrl}`);
  say(`export SLACK_BOT_TOKEN=${SLACK_TOKEN}`);
  say(`export SLACK_SIGNING_SECRET=${SLACK_SECRET}`);
  say(`export SLACK_DEFAULT_CHANNEL=${SLACK_CHANNEL}`);
  say(`export TELEGRAM_API_URL=${telegram.apiUrl}`);
  say(`export TELEGRAM_BOT_TOKEN=${TELEGRAM_TOKEN}`);
  say(`export TELEGRAM_DEFAULT_CHAT=${TELEGRAM_CHAT}`);
  say('export OUTBOUND_ALLOW_PRIVATE_TARGETS=true');
  say(`Clicks go to ${parleyUrl} (PARLEY_URL). Type: slack <card> <button> <user id> | telegram <card> <button> <user id> | quit`);

  const click = async (line: string): Promise<string> => {
    const [platform, card, button, user] = line.trim().split(/\s+/);
    const at = (text: string | undefined) => Number(text) - 1;
    if (platform === 'slack' && user) {
      const message = slack.messages[at(card)];
      const pressed = message && slack.buttonsOf(message)[at(button)];
      if (!message || !pressed) return 'no such Slack card or button';
      const signed = signedSlackRequest(SLACK_SECRET, interactionBody(buttonClick(message, pressed, user)));
      const response = await fetch(`${parleyUrl}/api/v1/connectors/slack/events`, { method: 'POST', headers: signed.headers, body: signed.body });
      return `slack click by ${user}: Parley answered ${response.status}`;
    }
    if (platform === 'telegram' && user) {
      const message = telegram.messages[at(card)];
      if (!message || !telegram.buttonsOf(message)[at(button)]) return 'no such Telegram card or button';
      const update = telegram.press(message, at(button), Number(user));
      return `telegram press by ${user}: update ${String(update.update_id)} queued for getUpdates`;
    }
    return 'type: slack <card> <button> <Slack user id> | telegram <card> <button> <Telegram user id> | quit';
  };
  const input = readline.createInterface({ input: process.stdin });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    input.close();
    void Promise.all([slack.close(), telegram.close()]).then(() => process.exit(0));
  };
  input.on('line', (line) => {
    if (line.trim() === 'quit') return stop();
    click(line).then(say, (error: unknown) => say(`the click failed: ${error instanceof Error ? error.message : String(error)}`));
  });
  input.on('close', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`chat fakes failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
