import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { eventually } from '../../support/eventually.js';
import { type FakeTelegram, startFakeTelegram, type TelegramMessage } from '../../../apps/chat-fakes/src/fake-telegram.js';
import { type Person, team, type Team } from '../../support/routing.js';

/**
 * Telegram as an answering surface, driven the way Telegram drives a bot: Parley sends a card to the
 * fake Bot API; a button press is a `callback_query` update the fake serves to getUpdates (or that the
 * test posts to the webhook). The press answers through the one resolver as the linked user (surface
 * `telegram`), the card is edited when the bundle is answered, a duplicate update changes nothing,
 * and with two replicas on one database exactly one of them polls and each card is sent once.
 */
const BOT_TOKEN = '123456:test-telegram-token';
const GROUP = '-100777';
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const ALICE_TG = 4242;
const ONE_QUESTION = [
  { id: 'db', title: 'Database', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] },
];

async function link(t: TestApp, person: Person, accountId: number): Promise<void> {
  await request(t.baseUrl).post(`/api/v1/admin/users/${person.id}/chat-links`).set('authorization', ADMIN).send({ platform: 'telegram', account_id: String(accountId) }).expect(201);
}

/** Asks on a session of its own in the team's workspace (a session holds one pending bundle). */
async function ask(t: TestApp, crew: Team, questions: unknown[] = ONE_QUESTION): Promise<string> {
  const owner = (req: request.Test) => req.set('authorization', `Bearer ${crew.owner.token}`);
  const task = await owner(request(t.baseUrl).post('/api/v1/tasks')).send({ title: 'chat', workspace_id: crew.fixture.workspaceId }).expect(201);
  const session = await owner(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`)).send({}).expect(201);
  await owner(request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`)).send({ state: 'RUNNING' }).expect(200);
  await owner(request(t.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`)).expect(201);
  const asked = await owner(request(t.baseUrl).post('/api/v1/clarification/request')).send({ session_id: session.body.id, questions }).expect(200);
  return asked.body.pending_id as string;
}

async function bundle(t: TestApp, crew: Team, pendingId: string) {
  return (await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${crew.owner.token}`).expect(200)).body;
}

const auditOf = async (t: TestApp, pendingId: string) =>
  (await t.db.query<{ surface: string; outcome: string }>(`SELECT surface, outcome FROM clarification_audit WHERE pending_id = $1 ORDER BY at`, [pendingId])).rows;

const telegramConfig = (apiUrl: string, webhookSecret?: string) => ({
  chat: { telegram: { botToken: BOT_TOKEN, apiUrl, defaultChat: GROUP, ...(webhookSecret ? { webhookSecret } : {}) } },
});

describe('Telegram, polling, two replicas on one database', () => {
  let telegram: FakeTelegram;
  let first: TestApp;
  let second: TestApp;
  let crew: Team;
  let alice: Person;

  beforeAll(async () => {
    telegram = await startFakeTelegram(BOT_TOKEN);
    first = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE, ...telegramConfig(telegram.apiUrl) } });
    second = await startApp({ databaseUrl: first.databaseUrl, config: { authMode: 'enabled', ...QUIET_LEASE, ...telegramConfig(telegram.apiUrl) } });
    crew = await team(first, 1, 'tg');
    alice = crew.members[0];
    await link(first, alice, ALICE_TG);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await telegram.close();
  });

  const cardOf = (pendingId: string) => eventually(() => telegram.messagesFor(pendingId)[0], 5000, `the card of ${pendingId}`);
  const closed = (message: TelegramMessage) => (message.keyboard === undefined ? true : undefined);
  const callbackAnswers = (update: Record<string, unknown>) =>
    telegram.callsOf('answerCallbackQuery').filter((call) => call.args.callback_query_id === (update.callback_query as { id: string }).id);

  it('sends a card with a button per option; a press answers as the linked user, surface telegram, and the card is edited', async () => {
    const pendingId = await ask(first, crew);
    const card = await cardOf(pendingId);
    expect(card.chatId).toBe(GROUP);
    expect(telegram.buttonsOf(card).map((button) => button.text)).toEqual(['PostgreSQL', 'SQLite']);

    const press = telegram.press(card, 0, ALICE_TG);
    const answered = await eventually(() => callbackAnswers(press)[0], 10_000, 'the callback answered');
    expect(answered.args.show_alert).toBe(false);
    const state = await bundle(first, crew, pendingId);
    expect(state.resolved_by).toMatchObject({ kind: 'user', user_id: alice.id, surface: 'telegram' });
    expect(state.response.answers).toEqual([{ question_id: 'db', selected_options: ['pg'], custom_text: '' }]);
    expect(await auditOf(first, pendingId)).toEqual([{ surface: 'telegram', outcome: 'won' }]);
    await eventually(() => closed(card), 5000, 'the card edited');
    expect(card.text).toContain('Answered by tg-member-0 via Telegram: PostgreSQL');
    expect(telegram.messagesFor(pendingId)).toHaveLength(1);
  });

  it('a duplicate update resolves nothing twice and records no second attempt', async () => {
    const pendingId = await ask(first, crew);
    const card = await cardOf(pendingId);
    const press = telegram.pressUpdate(card, 1, ALICE_TG);
    telegram.redeliver(press);
    await eventually(() => (callbackAnswers(press).length === 2 ? true : undefined), 10_000, 'both deliveries handled');
    expect((await bundle(first, crew, pendingId)).response.answers[0].selected_options).toEqual(['sqlite']);
    expect(await auditOf(first, pendingId)).toEqual([{ surface: 'telegram', outcome: 'won' }]);
  });

  it('a multi-select question: each person’s ticks (toggles) are kept until their Submit', async () => {
    const pendingId = await ask(first, crew, [
      { id: 'regions', prompt: 'Where?', multi_select: true, options: [{ option_id: 'eu', label: 'EU' }, { option_id: 'us', label: 'US' }, { option_id: 'ap', label: 'APAC' }] },
    ]);
    const card = await cardOf(pendingId);
    expect(telegram.buttonsOf(card).map((button) => button.text)).toEqual(['☐ EU', '☐ US', '☐ APAC', 'Submit']);
    const ticks = [0, 2, 0, 1].map((index) => telegram.press(card, index, ALICE_TG));
    const last = await eventually(() => callbackAnswers(ticks[3])[0], 10_000, 'the last tick answered');
    expect(last.args).toMatchObject({ show_alert: false, text: 'Ticked: APAC, US. Press Submit when done.' });
    expect((await bundle(first, crew, pendingId)).status).toBe('pending');

    const submit = telegram.press(card, 3, ALICE_TG);
    await eventually(() => callbackAnswers(submit)[0], 10_000, 'the submit answered');
    const state = await bundle(first, crew, pendingId);
    expect(state.resolved_by).toMatchObject({ user_id: alice.id, surface: 'telegram' });
    expect([...(state.response.answers[0].selected_options as string[])].sort()).toEqual(['ap', 'us']);
    await eventually(() => closed(card), 5000, 'the card edited');
  });

  it('tells an unlinked presser to link (an alert), and changes nothing', async () => {
    const pendingId = await ask(first, crew);
    const card = await cardOf(pendingId);
    const press = telegram.press(card, 0, 9_999);
    const alert = await eventually(() => callbackAnswers(press)[0], 10_000, 'the alert');
    expect(alert.args.show_alert).toBe(true);
    expect(String(alert.args.text)).toContain('not linked');
    expect((await bundle(first, crew, pendingId)).status).toBe('pending');
    expect(await auditOf(first, pendingId)).toEqual([]);
  });

  it('answers /link with the account id to link', async () => {
    const message = telegram.push({ message: { message_id: 1, from: { id: 31337 }, chat: { id: 31337, type: 'private' }, text: '/link' } });
    const reply = await eventually(() => telegram.callsOf('sendMessage').find((call) => String(call.args.text).includes('31337')), 10_000, 'the reply');
    expect(reply.args.chat_id).toBe(31337);
    expect(message.update_id).toBeGreaterThan(0);
  });

  it('polled from one replica only, and sent each card once', () => {
    expect(telegram.conflicts).toBe(0);
    const sentPerBundle = new Map<string, number>();
    for (const call of telegram.callsOf('sendMessage')) {
      const data = JSON.stringify(call.args.reply_markup ?? '');
      const pendingId = /a\|([^|]+)\|/.exec(data)?.[1];
      if (pendingId) sentPerBundle.set(pendingId, (sentPerBundle.get(pendingId) ?? 0) + 1);
    }
    expect(sentPerBundle.size).toBeGreaterThan(0);
    expect([...sentPerBundle.values()].every((count) => count === 1)).toBe(true);
  });
});

describe('Telegram, webhook mode', () => {
  const SECRET = 'telegram-webhook-secret';
  let telegram: FakeTelegram;
  let t: TestApp;
  let crew: Team;

  beforeAll(async () => {
    telegram = await startFakeTelegram(BOT_TOKEN);
    t = await startApp({ config: { authMode: 'enabled', ...QUIET_LEASE, ...telegramConfig(telegram.apiUrl, SECRET) } });
    crew = await team(t, 1, 'tgw');
    await link(t, crew.members[0], ALICE_TG);
  });
  afterAll(async () => {
    await t.close();
    await telegram.close();
  });

  it('takes updates at the webhook with the secret token (a wrong one is 401 and changes nothing), and never polls', async () => {
    const pendingId = await ask(t, crew);
    const card = await eventually(() => telegram.messagesFor(pendingId)[0], 5000, 'the card');
    const update = {
      update_id: 77,
      callback_query: { id: 'cbq-hook', from: { id: ALICE_TG }, message: { message_id: card.messageId, chat: { id: Number(card.chatId) } }, data: telegram.buttonsOf(card)[1]?.callback_data },
    };
    await request(t.baseUrl).post('/api/v1/connectors/telegram/webhook').set('x-telegram-bot-api-secret-token', 'wrong').send(update).expect(401);
    await request(t.baseUrl).post('/api/v1/connectors/telegram/webhook').send(update).expect(401);
    expect((await bundle(t, crew, pendingId)).status).toBe('pending');

    await request(t.baseUrl).post('/api/v1/connectors/telegram/webhook').set('x-telegram-bot-api-secret-token', SECRET).send(update).expect(200);
    expect((await bundle(t, crew, pendingId)).resolved_by).toMatchObject({ surface: 'telegram' });
    await request(t.baseUrl).post('/api/v1/connectors/telegram/webhook').set('x-telegram-bot-api-secret-token', SECRET).send(update).expect(200);
    expect(await auditOf(t, pendingId)).toEqual([{ surface: 'telegram', outcome: 'won' }]);
    await eventually(() => (card.keyboard === undefined ? true : undefined), 5000, 'the card edited');
    expect(telegram.callsOf('getUpdates')).toEqual([]);
  });
});
