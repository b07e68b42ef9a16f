/**
 * Linking a chat account in a real headless Chromium: `/parley link` in Slack answers (ephemerally)
 * with a one-time link; the person opens it in the inbox, signed in, and confirms; from then on their
 * Slack clicks answer as them. The link works once.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { describeInChromium, useBrowserPage } from '../../support/browser.js';
import { eventually } from '../../support/eventually.js';
import { buttonClick, type FakeSlack, interactionBody, signedSlackRequest, startFakeSlack } from '../../../apps/chat-fakes/src/fake-slack.js';
import { createRunningSession, createUser } from '../../support/fixtures.js';

const SLACK_TOKEN = 'xoxb-link';
const SLACK_SECRET = 'slack-link-secret';
const EVENTS = '/api/v1/connectors/slack/events';

describeInChromium('linking a Slack account from chat, confirmed in the browser', () => {
  let slack: FakeSlack;
  const web = useBrowserPage(async (): Promise<TestApp> => {
    slack = await startFakeSlack(SLACK_TOKEN);
    const app = await startApp({
      config: { authMode: 'enabled', chat: { slack: { botToken: SLACK_TOKEN, signingSecret: SLACK_SECRET, apiUrl: slack.apiUrl, defaultChannel: 'C0LINK' } } },
    });
    return {
      ...app,
      close: async () => {
        await app.close();
        await slack.close();
      },
    };
  });

  const slashCommand = (user: string) => {
    const signed = signedSlackRequest(SLACK_SECRET, new URLSearchParams({ command: '/parley', text: 'link', user_id: user, team_id: 'T0', trigger_id: 't' }).toString());
    return request(web.app.baseUrl).post(EVENTS).set(signed.headers).send(signed.body).expect(200);
  };

  it('/parley link, then "Link it to me" in the inbox: the account answers as the signed-in user, and the link works once', async () => {
    const dana = await createUser(web.app, 'dana');
    const reply = await slashCommand('U0DANA');
    expect(reply.body.response_type).toBe('ephemeral');
    const code = /#\/link\/([A-Za-z0-9_-]+)/.exec(String(reply.body.text))?.[1];
    if (!code) throw new Error(`no link in ${JSON.stringify(reply.body)}`);

    const page = web.page;
    await page.goto(`${web.app.baseUrl}/`);
    await page.getByLabel('Personal access token').fill(dana.token);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.goto(`${web.app.baseUrl}/#/link/${code}`);
    await page.getByRole('heading', { name: 'Link a chat account' }).waitFor();
    const linked = await web.app.db.query(`SELECT 1 FROM chat_links WHERE platform_user_id = 'U0DANA'`);
    expect(linked.rowCount).toBe(0);
    await page.getByRole('button', { name: 'Link it to me' }).click();
    await page.getByRole('status').filter({ hasText: 'Slack account U0DANA now answers as you' }).waitFor();

    const row = await web.app.db.query<{ user_id: string }>(`SELECT user_id FROM chat_links WHERE platform = 'slack' AND platform_user_id = 'U0DANA'`);
    expect(row.rows).toEqual([{ user_id: dana.id }]);

    const fixture = await createRunningSession(web.app, { bearer: dana.token });
    const asked = await request(web.app.baseUrl)
      .post('/api/v1/clarification/request')
      .set('authorization', `Bearer ${dana.token}`)
      .send({ session_id: fixture.sessionId, questions: [{ id: 'go', prompt: 'Ship it?', options: [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }] }] })
      .expect(200);
    const pendingId = asked.body.pending_id as string;
    const card = await eventually(() => slack.messagesFor(pendingId)[0], 5000, 'the card');
    const yes = slack.buttonsOf(card)[0];
    if (!yes) throw new Error('no button');
    const click = signedSlackRequest(SLACK_SECRET, interactionBody(buttonClick(card, yes, 'U0DANA')));
    await request(web.app.baseUrl).post(EVENTS).set(click.headers).send(click.body).expect(200);
    const state = (await request(web.app.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${dana.token}`).expect(200)).body;
    expect(state.resolved_by).toMatchObject({ user_id: dana.id, surface: 'slack' });

    await page.goto(`${web.app.baseUrl}/#/`);
    await page.goto(`${web.app.baseUrl}/#/link/${code}`);
    await page.getByRole('button', { name: 'Link it to me' }).click();
    await page.getByRole('alert').filter({ hasText: 'unknown, already used or expired' }).waitFor();
  });
});
