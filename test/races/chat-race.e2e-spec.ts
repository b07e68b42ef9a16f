/**
 * One winner across chat and the other surfaces: a Slack click, a Telegram press (at the webhook),
 * a REST respond and an MCP `answer_question_kandev` fired at the same fresh bundle, round after
 * round. Chat answers go through the one resolver, so in every round exactly one attempt wins (one
 * `won` row in the audit trail, the winner's surface on the rows), and every posted card — the Slack
 * message and the Telegram one — is edited to name that winner and loses its buttons.
 */
import request from 'supertest';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/app.js';
import { QUIET_LEASE } from '../support/claim.js';
import { eventually } from '../support/eventually.js';
import { buttonClick, type FakeSlack, interactionBody, signedSlackRequest, startFakeSlack } from '../../apps/chat-fakes/src/fake-slack.js';
import { type FakeTelegram, startFakeTelegram } from '../../apps/chat-fakes/src/fake-telegram.js';
import { connectMcp, type McpConnection } from '../support/mcp.js';
import { type Person, team, type Team } from '../support/routing.js';
import { submit } from '../support/surfaces.js';

const ROUNDS = 4;
const SLACK_TOKEN = 'xoxb-race';
const SLACK_SECRET = 'slack-race-secret';
const TELEGRAM_TOKEN = '99:race';
const TELEGRAM_SECRET = 'telegram-race-secret';
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const QUESTIONS = [
  {
    id: 'db',
    title: 'Database',
    prompt: 'Which database?',
    options: [
      { option_id: 'pg', label: 'PostgreSQL' },
      { option_id: 'sqlite', label: 'SQLite' },
      { option_id: 'mysql', label: 'MySQL' },
      { option_id: 'duck', label: 'DuckDB' },
    ],
  },
];
const SURFACE_NAMES: Record<string, string> = { slack: 'Slack', telegram: 'Telegram', rest: 'the REST API', mcp: 'MCP' };

describe('one winner across Slack, Telegram, REST and MCP', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let telegram: FakeTelegram;
  let crew: Team;
  let mcp: McpConnection;
  const wins: Record<string, number> = {};

  beforeAll(async () => {
    slack = await startFakeSlack(SLACK_TOKEN);
    telegram = await startFakeTelegram(TELEGRAM_TOKEN);
    t = await startApp({
      config: {
        authMode: 'enabled',
        ...QUIET_LEASE,
        chat: {
          slack: { botToken: SLACK_TOKEN, signingSecret: SLACK_SECRET, apiUrl: slack.apiUrl, defaultChannel: 'C0RACE' },
          telegram: { botToken: TELEGRAM_TOKEN, apiUrl: telegram.apiUrl, defaultChat: '-100900', webhookSecret: TELEGRAM_SECRET },
        },
      },
    });
    crew = await team(t, 4, 'race');
    const [slacker, texter] = crew.members as [Person, Person];
    await request(t.baseUrl).post(`/api/v1/admin/users/${slacker.id}/chat-links`).set('authorization', ADMIN).send({ platform: 'slack', account_id: 'U0RACER' }).expect(201);
    await request(t.baseUrl).post(`/api/v1/admin/users/${texter.id}/chat-links`).set('authorization', ADMIN).send({ platform: 'telegram', account_id: '5150' }).expect(201);
    mcp = await connectMcp(t.baseUrl, { bearer: (crew.members[3]).token });
  });
  afterAll(async () => {
    // Information only: which surface won is timing, not a rule.
    process.stdout.write(`chat race winners (information only): ${JSON.stringify(wins)}\n`);
    await mcp.close();
    await t.close();
    await slack.close();
    await telegram.close();
  });

  async function ask(): Promise<string> {
    const owner = (req: request.Test) => req.set('authorization', `Bearer ${crew.owner.token}`);
    const task = await owner(request(t.baseUrl).post('/api/v1/tasks')).send({ title: 'race', workspace_id: crew.fixture.workspaceId }).expect(201);
    const session = await owner(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`)).send({}).expect(201);
    await owner(request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`)).send({ state: 'RUNNING' }).expect(200);
    await owner(request(t.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`)).expect(201);
    return (await owner(request(t.baseUrl).post('/api/v1/clarification/request')).send({ session_id: session.body.id, questions: QUESTIONS }).expect(200)).body
      .pending_id as string;
  }

  it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))('round %i', async () => {
    const pendingId = await ask();
    const slackCard = await eventually(() => slack.messagesFor(pendingId)[0], 5000, 'the Slack card');
    const telegramCard = await eventually(() => telegram.messagesFor(pendingId)[0], 5000, 'the Telegram card');
    const slackButton = slack.buttonsOf(slackCard)[0];
    if (!slackButton) throw new Error('no Slack button');
    const click = signedSlackRequest(SLACK_SECRET, interactionBody(buttonClick(slackCard, slackButton, 'U0RACER')));
    const press = {
      update_id: Date.now(),
      callback_query: { id: `race-${pendingId}`, from: { id: 5150 }, message: { message_id: telegramCard.messageId, chat: { id: Number(telegramCard.chatId) } }, data: telegram.buttonsOf(telegramCard)[1]?.callback_data },
    };
    const [slackRes, telegramRes, rest, viaMcp] = await Promise.all([
      request(t.baseUrl).post('/api/v1/connectors/slack/events').set(click.headers).send(click.body),
      request(t.baseUrl).post('/api/v1/connectors/telegram/webhook').set('x-telegram-bot-api-secret-token', TELEGRAM_SECRET).send(press),
      submit('rest', { baseUrl: t.baseUrl, token: (crew.members[2]).token, mcp }, pendingId, { kind: 'answer', answers: [{ question_id: 'db', selected_options: ['mysql'], custom_text: '' }] }),
      submit('mcp', { baseUrl: t.baseUrl, mcp }, pendingId, { kind: 'answer', answers: [{ question_id: 'db', selected_options: ['duck'], custom_text: '' }] }),
    ]);
    expect([slackRes.status, telegramRes.status]).toEqual([200, 200]);
    for (const outcome of [rest, viaMcp]) expect(outcome.kind).toBe('resolved');

    const state = (await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${crew.owner.token}`).expect(200)).body;
    expect(state.status).toBe('answered');
    const surface = state.resolved_by.surface as string;
    wins[surface] = (wins[surface] ?? 0) + 1;
    const won = await t.db.query(`SELECT surface FROM clarification_audit WHERE pending_id = $1 AND outcome = 'won'`, [pendingId]);
    expect(won.rows).toEqual([{ surface }]);
    const claimed = [rest, viaMcp].filter((outcome) => outcome.kind === 'resolved' && outcome.envelope.claimed);
    expect(claimed.length).toBe(surface === 'rest' || surface === 'mcp' ? 1 : 0);

    await eventually(() => (slack.buttonsOf(slackCard).length === 0 && telegramCard.keyboard === undefined ? true : undefined), 5000, 'every card edited');
    expect(slackCard.text).toContain(`via ${SURFACE_NAMES[surface]}`);
    expect(telegramCard.text).toContain(`via ${SURFACE_NAMES[surface]}`);
  });
});
