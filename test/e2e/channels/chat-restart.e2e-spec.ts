/**
 * Chat across a crash, with the built server: the card is posted by one process, which is then killed
 * with SIGKILL; a new process on the same database takes the click, the answer wins (surface slack),
 * the card that the dead process posted is the one edited, and nothing is posted a second time.
 * Accounts are linked with the CLI (`parley users:link`), as an operator does.
 */
import request from 'supertest';
import { createTestDatabase, openPool } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { buttonClick, type FakeSlack, interactionBody, signedSlackRequest, startFakeSlack } from '../../../apps/chat-fakes/src/fake-slack.js';
import { type FakeTelegram, startFakeTelegram } from '../../../apps/chat-fakes/src/fake-telegram.js';
import { createRunningSession } from '../../support/fixtures.js';
import { runCli, startReplica } from '../../support/replicas.js';
import { killAllServers, killServer, type ServerProcess, stopServer } from '../../support/server-process.js';

const SLACK_TOKEN = 'xoxb-restart';
const SLACK_SECRET = 'slack-restart-secret';
const TELEGRAM_TOKEN = '7:restart';
const QUESTION = [{ id: 'db', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] }];

describe('chat across kill -9', () => {
  let slack: FakeSlack;
  let telegram: FakeTelegram;
  let databaseUrl: string;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    slack = await startFakeSlack(SLACK_TOKEN);
    telegram = await startFakeTelegram(TELEGRAM_TOKEN);
    databaseUrl = await createTestDatabase();
    env = {
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: slack.apiUrl,
      SLACK_DEFAULT_CHANNEL: 'C0KILL',
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_API_URL: telegram.apiUrl,
      TELEGRAM_DEFAULT_CHAT: '-100123',
    };
  });
  /** The cards of `pendingId` whose post is recorded (its message, no lease held). */
  async function recordedCards(pendingId: string): Promise<number> {
    const pool = openPool(databaseUrl, 1);
    try {
      const { rows } = await pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM chat_cards WHERE pending_id = $1 AND message_ref IS NOT NULL AND lease_owner IS NULL`,
        [pendingId],
      );
      return rows[0]?.count ?? 0;
    } finally {
      await pool.end();
    }
  }

  afterAll(async () => {
    await Promise.all(servers.map((server) => stopServer(server).catch(() => undefined)));
    await killAllServers();
    await slack.close();
    await telegram.close();
  });

  it('the click still answers after the process that posted the card was killed, and the card is not posted again', async () => {
    const first = await startReplica(databaseUrl, env);
    servers.push(first);
    const user = await request(first.baseUrl).post('/api/v1/admin/users').send({ name: 'kim' }).expect(201);
    const linked = await runCli(databaseUrl, ['users:link', '--user', user.body.id as string, '--slack', 'U0KIM', '--json']);
    expect(linked.code).toBe(0);
    expect(JSON.parse(linked.stdout)).toMatchObject({ platform: 'slack', account_id: 'U0KIM', user_id: user.body.id });
    const refused = await runCli(databaseUrl, ['users:link', '--user', user.body.id as string, '--slack', 'U0KIM', '--telegram', '42']);
    expect(refused.code).not.toBe(0);

    const fixture = await createRunningSession(first);
    const asked = await request(first.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: QUESTION }).expect(200);
    const pendingId = asked.body.pending_id as string;
    const card = await eventually(() => slack.messagesFor(pendingId)[0], 10_000, 'the Slack card');
    const telegramCard = await eventually(() => telegram.messagesFor(pendingId)[0], 10_000, 'the Telegram card');
    // Killed once it has recorded both posts: a kill between a platform's accepting a post and its record
    // is the other case (the card's lease runs out, then it is posted again), not this test's.
    await eventually(async () => ((await recordedCards(pendingId)) === 2 ? true : undefined), 10_000, 'both posts recorded');
    await killServer(first);

    const second = await startReplica(databaseUrl, env);
    servers.push(second);
    const button = slack.buttonsOf(card)[1];
    if (!button) throw new Error('no button');
    const click = signedSlackRequest(SLACK_SECRET, interactionBody(buttonClick(card, button, 'U0KIM')));
    await request(second.baseUrl).post('/api/v1/connectors/slack/events').set(click.headers).send(click.body).expect(200);

    const state = (await request(second.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200)).body;
    expect(state.resolved_by).toMatchObject({ user_id: user.body.id, surface: 'slack' });
    await eventually(() => (slack.buttonsOf(card).length === 0 && telegramCard.keyboard === undefined ? true : undefined), 10_000, 'both cards edited');
    expect(card.text).toContain('Answered by kim via Slack: SQLite');
    expect(slack.messagesFor(pendingId)).toHaveLength(1);
    expect(telegram.messagesFor(pendingId)).toHaveLength(1);
  });
});
