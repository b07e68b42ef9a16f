import request from 'supertest';
import { EscalationSweeper } from '#clarification/testing';
import { startApp, TEST_ADMIN_TOKEN, type TestApp } from '../../support/app.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { eventually } from '../../support/eventually.js';
import { buttonClick, type FakeSlack, interactionBody, signedSlackRequest, type SlackMessage, startFakeSlack, ticksSubmitted } from '../../../apps/chat-fakes/src/fake-slack.js';
import { connectMcp } from '../../support/mcp.js';
import { type Person, team, type Team } from '../../support/routing.js';
import { submit } from '../../support/surfaces.js';

/**
 * Slack as an answering surface, driven the way Slack drives a bot: Parley posts a card to the fake
 * Web API; the test signs the `block_actions` / `view_submission` Slack would send with the signing
 * secret and posts it to the request URL. The answer goes through the one resolver (as the linked
 * Parley user, with surface `slack`), the card follows the bundle, and retries change nothing.
 */
const BOT_TOKEN = 'xoxb-test-bot-token';
const SECRET = 'slack-signing-secret-for-tests';
const CHANNEL = 'C0DEFAULT';
const EVENTS = '/api/v1/connectors/slack/events';
const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;

const ONE_QUESTION = [
  {
    id: 'db',
    title: 'Database',
    prompt: 'Which database?',
    options: [
      { option_id: 'pg', label: 'PostgreSQL' },
      { option_id: 'sqlite', label: 'SQLite' },
    ],
  },
];

describe('Slack: answering from a card', () => {
  let t: TestApp;
  let slack: FakeSlack;
  let crew: Team;
  let alice: Person;
  let bob: Person;

  beforeAll(async () => {
    slack = await startFakeSlack(BOT_TOKEN);
    t = await startApp({
      config: {
        authMode: 'enabled',
        ...QUIET_LEASE,
        publicUrl: 'https://parley.example',
        chat: { slack: { botToken: BOT_TOKEN, signingSecret: SECRET, apiUrl: slack.apiUrl, defaultChannel: CHANNEL } },
      },
    });
    crew = await team(t, 2, 'slack');
    [alice, bob] = crew.members as [Person, Person];
    for (const [person, account] of [
      [alice, 'U0ALICE'],
      [bob, 'U0BOB'],
    ] as const) {
      const linked = await request(t.baseUrl)
        .post(`/api/v1/admin/users/${person.id}/chat-links`)
        .set('authorization', ADMIN)
        .send({ platform: 'slack', account_id: account })
        .expect(201);
      expect(linked.body).toMatchObject({ platform: 'slack', account_id: account, user_id: person.id });
    }
  });
  afterAll(async () => {
    await t.close();
    await slack.close();
  });

  const send = (body: string, options: { retry?: number; timestamp?: number; contentType?: string } = {}) => {
    const signed = signedSlackRequest(SECRET, body, options);
    return request(t.baseUrl).post(EVENTS).set(signed.headers).send(signed.body);
  };
  const click = (message: SlackMessage, optionId: string, user: string, triggerId?: string) => {
    const button = slack.buttonsOf(message).find((candidate) => JSON.parse(candidate.value).o === optionId);
    if (!button) throw new Error(`no button for ${optionId}`);
    return buttonClick(message, button, user, triggerId);
  };
  /** Asks on a session of its own in the team's workspace (a session holds one pending bundle). */
  const ask = async (questions: unknown[] = ONE_QUESTION, routing?: unknown): Promise<string> => {
    const owner = (req: request.Test) => req.set('authorization', `Bearer ${crew.owner.token}`);
    const task = await owner(request(t.baseUrl).post('/api/v1/tasks')).send({ title: 'chat', workspace_id: crew.fixture.workspaceId }).expect(201);
    const session = await owner(request(t.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`)).send({}).expect(201);
    await owner(request(t.baseUrl).patch(`/api/v1/sessions/${session.body.id}`)).send({ state: 'RUNNING' }).expect(200);
    await owner(request(t.baseUrl).post(`/api/v1/sessions/${session.body.id}/turns`)).expect(201);
    const asked = await owner(request(t.baseUrl).post('/api/v1/clarification/request'))
      .send({ session_id: session.body.id, questions, ...(routing === undefined ? {} : { routing }) })
      .expect(200);
    return asked.body.pending_id as string;
  };
  const cardOf = (pendingId: string) => eventually(() => slack.messagesFor(pendingId)[0], 5000, `the card of ${pendingId}`);
  const bundle = async (pendingId: string) =>
    (await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).set('authorization', `Bearer ${crew.owner.token}`).expect(200)).body;
  const auditOf = async (pendingId: string) =>
    (await t.db.query<{ surface: string; outcome: string }>(`SELECT surface, outcome FROM clarification_audit WHERE pending_id = $1 ORDER BY at`, [pendingId])).rows;
  const ephemeralsTo = (user: string) => slack.callsOf('chat.postEphemeral').filter((call) => call.args.user === user);
  const closed = (message: SlackMessage) => slack.buttonsOf(message).length === 0;

  it('answers the URL verification challenge', async () => {
    const res = await send(JSON.stringify({ type: 'url_verification', challenge: 'the-challenge', token: 'x' }), { contentType: 'application/json' }).expect(200);
    expect(res.body).toEqual({ challenge: 'the-challenge' });
  });

  it('posts a card with a button per option; a click answers as the linked user, surface slack, and the card says who won', async () => {
    const pendingId = await ask();
    const card = await cardOf(pendingId);
    expect(card.channel).toBe(CHANNEL);
    expect(slack.buttonsOf(card).map((button) => button.text.text)).toEqual(['PostgreSQL', 'SQLite']);

    await send(interactionBody(click(card, 'pg', 'U0ALICE'))).expect(200);

    const state = await bundle(pendingId);
    expect(state.status).toBe('answered');
    expect(state.resolved_by).toMatchObject({ kind: 'user', user_id: alice.id, surface: 'slack' });
    expect(state.response.answers).toEqual([{ question_id: 'db', selected_options: ['pg'], custom_text: '' }]);
    const [, claimsPart = ''] = String(state.receipt).split('.');
    const claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8'));
    expect(claims.surface).toBe('slack');
    expect(await auditOf(pendingId)).toEqual([{ surface: 'slack', outcome: 'won' }]);
    await eventually(() => (closed(card) ? true : undefined), 5000, 'the card edited');
    expect(card.text).toContain('Answered by slack-member-0 via Slack: PostgreSQL');
  });

  it('a retried click (X-Slack-Retry-Num) resolves nothing twice, records no second attempt, and gets the first outcome', async () => {
    const pendingId = await ask();
    const card = await cardOf(pendingId);
    const payload = interactionBody(click(card, 'sqlite', 'U0ALICE', 'retried.trigger'));
    await send(payload).expect(200);
    await send(payload, { retry: 1 }).expect(200);
    await send(payload, { retry: 2 }).expect(200);
    expect((await bundle(pendingId)).response.answers[0].selected_options).toEqual(['sqlite']);
    expect(await auditOf(pendingId)).toEqual([{ surface: 'slack', outcome: 'won' }]);
    expect((await t.db.query(`SELECT 1 FROM chat_interactions WHERE interaction_id = 'action:retried.trigger'`)).rowCount).toBe(1);
  });

  it('refuses a bad or stale signature with 401 and changes nothing', async () => {
    const pendingId = await ask();
    const card = await cardOf(pendingId);
    const body = interactionBody(click(card, 'pg', 'U0ALICE'));
    const forged = signedSlackRequest('not-the-secret', body);
    await request(t.baseUrl).post(EVENTS).set(forged.headers).send(body).expect(401);
    await send(body, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }).expect(401);
    await request(t.baseUrl).post(EVENTS).set('content-type', 'application/x-www-form-urlencoded').send(body).expect(401);
    expect((await bundle(pendingId)).status).toBe('pending');
    expect(await auditOf(pendingId)).toEqual([]);
  });

  it('tells an unlinked clicker privately to link their account, and changes nothing', async () => {
    const pendingId = await ask();
    const card = await cardOf(pendingId);
    await send(interactionBody(click(card, 'pg', 'U0STRANGER'))).expect(200);
    const note = await eventually(() => ephemeralsTo('U0STRANGER')[0], 5000, 'the ephemeral note');
    expect(note.args).toMatchObject({ channel: CHANNEL, user: 'U0STRANGER' });
    expect(String(note.args.text)).toContain('not linked');
    expect((await bundle(pendingId)).status).toBe('pending');
    expect(await auditOf(pendingId)).toEqual([]);
  });

  it('sends a routed bundle to its assignee as a direct message, and refuses a clicker who is not eligible', async () => {
    const pendingId = await ask(ONE_QUESTION, { answerers: { user_ids: [bob.id] } });
    const card = await cardOf(pendingId);
    expect(card.channel).toBe('DU0BOB');
    expect(slack.callsOf('conversations.open').some((call) => call.args.users === 'U0BOB')).toBe(true);
    expect(slack.messages.filter((message) => message.channel === CHANNEL && slack.messagesFor(pendingId).includes(message))).toEqual([]);

    await send(interactionBody(click(card, 'pg', 'U0ALICE'))).expect(200);
    const refusal = await eventually(() => ephemeralsTo('U0ALICE').find((call) => String(call.args.text).includes('assigned to someone else')), 5000, 'the refusal');
    expect(refusal).toBeDefined();
    expect((await bundle(pendingId)).status).toBe('pending');

    await send(interactionBody(click(card, 'sqlite', 'U0BOB'))).expect(200);
    expect((await bundle(pendingId)).resolved_by).toMatchObject({ user_id: bob.id, surface: 'slack' });
  });

  it('edits the card when the bundle is answered elsewhere; a click on the stale card changes nothing and says why', async () => {
    const pendingId = await ask();
    const card = await cardOf(pendingId);
    await request(t.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .set('authorization', `Bearer ${bob.token}`)
      .send({ answers: [{ question_id: 'db', selected_options: ['sqlite'], custom_text: '' }] })
      .expect(200);
    await eventually(() => (closed(card) ? true : undefined), 5000, 'the card edited');
    expect(card.text).toContain('Answered by slack-member-1 via the REST API: SQLite');

    // The card as it was before the edit: someone whose Slack had not refreshed yet clicks it.
    const before: SlackMessage = { ...card, blocks: card.versions[0]?.blocks as SlackMessage['blocks'] };
    const [staleButton] = slack.buttonsOf(before);
    if (!staleButton) throw new Error('the first version had no buttons');
    const stale = buttonClick(before, staleButton, 'U0ALICE');
    await send(interactionBody(stale)).expect(200);
    const note = await eventually(() => ephemeralsTo('U0ALICE').find((call) => String(call.args.text).includes('Someone else already answered')), 5000, 'the loser note');
    expect(String(note.args.text)).toContain('sqlite');
    expect((await bundle(pendingId)).resolved_by).toMatchObject({ user_id: bob.id, surface: 'rest' });
  });

  it('answers a multi-question bundle through the modal (multi-select and free text included)', async () => {
    const questions = [
      { id: 'db', title: 'Database', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] },
      { id: 'regions', title: 'Regions', prompt: 'Where?', multi_select: true, options: [{ option_id: 'eu', label: 'EU' }, { option_id: 'us', label: 'US' }] },
    ];
    const pendingId = await ask(questions);
    const card = await cardOf(pendingId);
    const open = slack.buttonsOf(card);
    expect(open.map((button) => button.text.text)).toEqual(['Answer']);
    await send(interactionBody(buttonClick(card, open[0] as never, 'U0ALICE', 'modal.trigger'))).expect(200);
    const opened = slack.callsOf('views.open').find((call) => call.args.trigger_id === 'modal.trigger');
    expect(opened).toBeDefined();
    const modal = opened?.args.view as { private_metadata: string; callback_id: string; blocks: Array<{ block_id?: string; element?: { type: string } }> };
    expect(modal.private_metadata).toBe(pendingId);
    expect(modal.blocks.find((block) => block.block_id === 'choice:regions')?.element?.type).toBe('checkboxes');

    const submission = {
      type: 'view_submission',
      user: { id: 'U0ALICE' },
      view: {
        id: 'V0MODAL1',
        callback_id: modal.callback_id,
        private_metadata: modal.private_metadata,
        state: {
          values: {
            'choice:db': { choice: { type: 'static_select', selected_option: { value: 'pg' } } },
            'text:db': { text: { type: 'plain_text_input', value: 'with PostGIS' } },
            'choice:regions': { choice: { type: 'checkboxes', selected_options: [{ value: 'eu' }, { value: 'us' }] } },
            'text:regions': { text: { type: 'plain_text_input', value: null } },
          },
        },
      },
    };
    const res = await send(interactionBody(submission)).expect(200);
    expect(res.body).toEqual({ response_action: 'clear' });
    const state = await bundle(pendingId);
    expect(state.resolved_by).toMatchObject({ user_id: alice.id, surface: 'slack' });
    expect(state.response.answers).toEqual([
      { question_id: 'db', selected_options: ['pg'], custom_text: 'with PostGIS' },
      { question_id: 'regions', selected_options: ['eu', 'us'], custom_text: '' },
    ]);
    await eventually(() => (closed(card) ? true : undefined), 5000, 'the card edited');
  });

  it('answers a multi-select question with toggles and a Submit on the card', async () => {
    const pendingId = await ask([
      { id: 'regions', title: 'Regions', prompt: 'Where?', multi_select: true, options: [{ option_id: 'eu', label: 'EU' }, { option_id: 'us', label: 'US' }, { option_id: 'ap', label: 'APAC' }] },
    ]);
    const card = await cardOf(pendingId);
    expect(slack.buttonsOf(card).map((element) => element.type)).toEqual(['checkboxes', 'button']);
    // A tick alone answers nothing: Slack keeps it, Parley hears of it only with Submit.
    const [checkboxes] = slack.buttonsOf(card);
    if (!checkboxes) throw new Error('no checkboxes');
    await send(interactionBody(buttonClick(card, { ...checkboxes, value: '' }, 'U0ALICE'))).expect(200);
    expect((await bundle(pendingId)).status).toBe('pending');

    await send(interactionBody(ticksSubmitted(card, 'U0ALICE', ['eu', 'ap']))).expect(200);
    const state = await bundle(pendingId);
    expect(state.resolved_by).toMatchObject({ user_id: alice.id, surface: 'slack' });
    expect(state.response.answers).toEqual([{ question_id: 'regions', selected_options: ['eu', 'ap'], custom_text: '' }]);
    await eventually(() => (closed(card) ? true : undefined), 5000, 'the card edited');
    expect(card.text).toContain('EU, APAC');
  });

  it('counts a Slack click as one vote of a quorum of two; a matching REST answer completes it', async () => {
    const pendingId = await ask(ONE_QUESTION, { answerers: { user_ids: [alice.id, bob.id] }, required_answers: 2 });
    const card = await eventually(() => slack.messagesFor(pendingId).find((message) => message.channel === 'DU0ALICE'), 5000, "alice's card");
    expect(card.text).toBeDefined();
    await send(interactionBody(click(card, 'pg', 'U0ALICE'))).expect(200);
    const note = await eventually(() => ephemeralsTo('U0ALICE').find((call) => String(call.args.text).includes('1 of 2')), 5000, 'the vote note');
    expect(note).toBeDefined();
    expect((await bundle(pendingId)).status).toBe('pending');
    await eventually(() => (JSON.stringify(card.blocks).includes('1 of 2') ? true : undefined), 5000, 'the quorum progress on the card');

    await request(t.baseUrl)
      .post(`/api/v1/clarification/${pendingId}/respond`)
      .set('authorization', `Bearer ${bob.token}`)
      .send({ answers: [{ question_id: 'db', selected_options: ['pg'], custom_text: '' }] })
      .expect(200);
    expect((await bundle(pendingId)).status).toBe('answered');
    for (const message of slack.messagesFor(pendingId)) await eventually(() => (closed(message) ? true : undefined), 5000, 'every card edited');
  });

  it('redraws quorum progress after a vote on REST or MCP, not only a chat vote; a GraphQL vote completes it and every card says so', async () => {
    const pendingId = await ask(ONE_QUESTION, { answerers: { user_ids: [alice.id, bob.id, crew.owner.id] }, required_answers: 3 });
    const cards = await eventually(() => (slack.messagesFor(pendingId).length === 2 ? slack.messagesFor(pendingId) : undefined), 5000, 'both DM cards');
    const showing = (progress: string) =>
      eventually(() => (cards.every((card) => JSON.stringify(card.blocks).includes(progress)) ? true : undefined), 5000, `every card showing ${progress}`);
    await showing('0 of 3');
    const vote = [{ question_id: 'db', selected_options: ['pg'], custom_text: '' }];
    const mcp = await connectMcp(t.baseUrl, { bearer: crew.owner.token });
    try {
      const byRest = await submit('rest', { baseUrl: t.baseUrl, token: alice.token, mcp }, pendingId, { kind: 'answer', answers: vote });
      expect(byRest).toMatchObject({ kind: 'resolved', envelope: { claimed: false, status: 'pending' } });
      await showing('1 of 3');
      const byMcp = await submit('mcp', { baseUrl: t.baseUrl, mcp }, pendingId, { kind: 'answer', answers: vote });
      expect(byMcp).toMatchObject({ kind: 'resolved', envelope: { claimed: false, status: 'pending' } });
      await showing('2 of 3');
      const byGraphql = await submit('graphql', { baseUrl: t.baseUrl, token: bob.token, mcp }, pendingId, { kind: 'answer', answers: vote });
      expect(byGraphql).toMatchObject({ kind: 'resolved', envelope: { claimed: true, status: 'answered' } });
    } finally {
      await mcp.close();
    }
    for (const card of cards) await eventually(() => (closed(card) ? true : undefined), 5000, 'every card edited');
  });

  it('redraws quorum progress after a vote recorded on another replica, one with no chat configured', async () => {
    const pendingId = await ask(ONE_QUESTION, { answerers: { user_ids: [alice.id, bob.id] }, required_answers: 2 });
    const cards = await eventually(() => (slack.messagesFor(pendingId).length === 2 ? slack.messagesFor(pendingId) : undefined), 5000, 'both DM cards');
    const showing = (progress: string) =>
      eventually(() => (cards.every((card) => JSON.stringify(card.blocks).includes(progress)) ? true : undefined), 5000, `every card showing ${progress}`);
    await showing('0 of 2');
    const replica = await startApp({ databaseUrl: t.databaseUrl, config: { authMode: 'enabled', ...QUIET_LEASE } });
    try {
      const vote = await request(replica.baseUrl)
        .post(`/api/v1/clarification/${pendingId}/respond`)
        .set('authorization', `Bearer ${alice.token}`)
        .send({ answers: [{ question_id: 'db', selected_options: ['pg'], custom_text: '' }] })
        .expect(200);
      expect(vote.body).toMatchObject({ claimed: false, status: 'pending' });
      await showing('1 of 2');
    } finally {
      await replica.close();
    }
  });

  it('an escalation that reassigns a routed bundle sends each new assignee a direct message, and none twice; a click answers', async () => {
    // Reassigned to alice (who has her card) and bob: bob gets a direct message, alice keeps her one card.
    const pendingId = await ask(ONE_QUESTION, { answerers: { user_ids: [alice.id] }, escalation: [{ after_seconds: 120, reassign_to: { user_ids: [alice.id, bob.id] } }] });
    const toAlice = await eventually(() => slack.messagesFor(pendingId).find((message) => message.channel === 'DU0ALICE'), 5000, "alice's card");
    expect(slack.messagesFor(pendingId).map((message) => message.channel)).toEqual(['DU0ALICE']);

    // The step is made due now (never waited for), and the sweep every replica runs takes it.
    await t.db.query(`UPDATE clarification_escalations SET due_at = clock_timestamp() WHERE pending_id = $1`, [pendingId]);
    await t.app.get(EscalationSweeper).sweep();
    const toBob = await eventually(() => slack.messagesFor(pendingId).find((message) => message.channel === 'DU0BOB'), 5000, "bob's direct message");
    expect(slack.buttonsOf(toBob).length).toBeGreaterThan(0);
    await eventually(() => (toAlice.versions.length > 1 ? true : undefined), 5000, "alice's card edited for the escalation");

    await send(interactionBody(click(toBob, 'sqlite', 'U0BOB'))).expect(200);
    expect((await bundle(pendingId)).resolved_by).toMatchObject({ user_id: bob.id, surface: 'slack' });
    for (const message of [toAlice, toBob]) await eventually(() => (closed(message) ? true : undefined), 5000, 'every card edited');
    expect(slack.messagesFor(pendingId).map((message) => message.channel).sort()).toEqual(['DU0ALICE', 'DU0BOB']);
  });

  it('links accounts on REST for admins only, naming the bad field', async () => {
    await request(t.baseUrl).post(`/api/v1/admin/users/${alice.id}/chat-links`).set('authorization', `Bearer ${alice.token}`).send({ platform: 'slack', account_id: 'U0X' }).expect(404);
    const bad = await request(t.baseUrl).post(`/api/v1/admin/users/${alice.id}/chat-links`).set('authorization', ADMIN).send({ platform: 'irc', account_id: 'U0X' }).expect(400);
    expect(JSON.stringify(bad.body)).toContain('platform');
    const badId = await request(t.baseUrl).post(`/api/v1/admin/users/${alice.id}/chat-links`).set('authorization', ADMIN).send({ platform: 'slack', account_id: 'nope' }).expect(400);
    expect(JSON.stringify(badId.body)).toContain('account_id');
    await request(t.baseUrl).post('/api/v1/admin/users/no-such-user/chat-links').set('authorization', ADMIN).send({ platform: 'slack', account_id: 'U0X' }).expect(404);
  });
});
