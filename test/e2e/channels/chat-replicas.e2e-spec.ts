/**
 * Chat with two replicas as two processes of the built server on one database, Slack and Telegram
 * both configured: each bundle is posted once per destination whichever replica asked, at most one
 * replica long-polls Telegram at a time (the fake Bot API answers a second concurrent getUpdates with
 * 409, and counts it), and a click answers whichever replica takes it — a Slack click posted to
 * either one, a Telegram press taken by the poller, and by the other once the first has stopped.
 */
import request from 'supertest';
import { type FakeSlack, buttonClick, interactionBody, signedSlackRequest, startFakeSlack } from '../../../apps/chat-fakes/src/fake-slack.js';
import { type FakeTelegram, startFakeTelegram } from '../../../apps/chat-fakes/src/fake-telegram.js';
import { createTestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession } from '../../support/fixtures.js';
import { runCli, startReplica } from '../../support/replicas.js';
import { killAllServers, type ServerProcess, stopServer } from '../../support/server-process.js';

const SLACK_TOKEN = 'xoxb-replicas';
const SLACK_SECRET = 'slack-replicas-secret';
const TELEGRAM_TOKEN = '9:replicas';
const CHANNEL = 'C0TWO';
const GROUP = '-100222';
const QUESTION = [{ id: 'db', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] }];

describe('chat on two replicas (two processes, one database)', () => {
  let slack: FakeSlack;
  let telegram: FakeTelegram;
  let databaseUrl: string;
  let first: ServerProcess;
  let second: ServerProcess;
  let userId: string;

  beforeAll(async () => {
    slack = await startFakeSlack(SLACK_TOKEN);
    telegram = await startFakeTelegram(TELEGRAM_TOKEN);
    databaseUrl = await createTestDatabase();
    const env = {
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: slack.apiUrl,
      SLACK_DEFAULT_CHANNEL: CHANNEL,
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_API_URL: telegram.apiUrl,
      TELEGRAM_DEFAULT_CHAT: GROUP,
    };
    [first, second] = await Promise.all([startReplica(databaseUrl, env), startReplica(databaseUrl, env)]);
    const user = await request(first.baseUrl).post('/api/v1/admin/users').send({ name: 'rae' }).expect(201);
    userId = user.body.id as string;
    expect((await runCli(databaseUrl, ['users:link', '--user', userId, '--slack', 'U0RAE'])).code).toBe(0);
    expect((await runCli(databaseUrl, ['users:link', '--user', userId, '--telegram', '77'])).code).toBe(0);
  });
  afterAll(async () => {
    await Promise.all([first, second].map((server) => stopServer(server).catch(() => undefined)));
    await killAllServers();
    await slack.close();
    await telegram.close();
  });

  /** Asks on `server`, on a session of its own, and waits for the bundle's card on both platforms. */
  const ask = async (server: ServerProcess) => {
    const fixture = await createRunningSession(server);
    const asked = await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: QUESTION }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const slackCard = await eventually(() => slack.messagesFor(pendingId)[0], 20_000, 'the Slack card');
    const telegramCard = await eventually(() => telegram.messagesFor(pendingId)[0], 20_000, 'the Telegram card');
    return { pendingId, slackCard, telegramCard };
  };
  const resolvedBy = (server: ServerProcess, pendingId: string) =>
    eventually(async () => (await request(server.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200)).body.resolved_by ?? undefined, 20_000, 'the answer');
  const bothEdited = (card: Awaited<ReturnType<typeof ask>>) =>
    eventually(() => (slack.buttonsOf(card.slackCard).length === 0 && card.telegramCard.keyboard === undefined ? true : undefined), 20_000, 'both cards edited');
  const slackClick = async (server: ServerProcess, card: Awaited<ReturnType<typeof ask>>, option: number) => {
    const button = slack.buttonsOf(card.slackCard)[option];
    if (!button) throw new Error('no button');
    const click = signedSlackRequest(SLACK_SECRET, interactionBody(buttonClick(card.slackCard, button, 'U0RAE')));
    await request(server.baseUrl).post('/api/v1/connectors/slack/events').set(click.headers).send(click.body).expect(200);
  };

  it('posts each bundle once per destination, whichever replica asked; a Slack click answers on either replica', async () => {
    const fromFirst = await ask(first);
    const fromSecond = await ask(second);
    expect([fromFirst.slackCard.channel, fromFirst.telegramCard.chatId]).toEqual([CHANNEL, GROUP]);

    await slackClick(second, fromFirst, 1);
    await slackClick(first, fromSecond, 0);
    expect(await resolvedBy(first, fromFirst.pendingId)).toMatchObject({ user_id: userId, surface: 'slack' });
    expect(await resolvedBy(second, fromSecond.pendingId)).toMatchObject({ user_id: userId, surface: 'slack' });
    await bothEdited(fromFirst);
    await bothEdited(fromSecond);
    expect(fromFirst.slackCard.text).toContain('Answered by rae via Slack: SQLite');
    expect(fromSecond.telegramCard.text).toContain('Answered by rae via Slack: PostgreSQL');
    for (const { pendingId } of [fromFirst, fromSecond]) {
      expect(slack.messagesFor(pendingId)).toHaveLength(1);
      expect(telegram.messagesFor(pendingId)).toHaveLength(1);
    }
    expect(slack.callsOf('chat.postMessage')).toHaveLength(2);
    expect(telegram.callsOf('sendMessage')).toHaveLength(2);
  });

  it('one replica polls Telegram at a time; a press answers, and still does after the first replica stops', async () => {
    const card = await ask(first);
    telegram.press(card.telegramCard, 0, 77);
    expect(await resolvedBy(second, card.pendingId)).toMatchObject({ user_id: userId, surface: 'telegram' });
    await bothEdited(card);

    await stopServer(first);
    const afterStop = await ask(second);
    telegram.press(afterStop.telegramCard, 1, 77);
    expect(await resolvedBy(second, afterStop.pendingId)).toMatchObject({ user_id: userId, surface: 'telegram' });
    await bothEdited(afterStop);
    expect(afterStop.slackCard.text).toContain('Answered by rae via Telegram: SQLite');
    expect(telegram.conflicts).toBe(0);
    expect(telegram.messagesFor(afterStop.pendingId)).toHaveLength(1);
  });
});
