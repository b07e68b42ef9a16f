/**
 * The browser inbox (W1–W4a) in a real headless Chromium against the real
 * application on a real PostgreSQL, with AUTH_MODE=disabled (test/e2e/web/browser-auth.e2e-spec.ts covers
 * sign-in and workspaces). Every wait is for something the page shows, never for a time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Request, WebSocketRoute } from 'playwright-core';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { at, insertBulkBundles, insertSession, insertTurn, syncBundleIndex } from '../../support/bundles.js';
import { axeViolations, type BrowserSession, describeInChromium, openBrowser, saveScreenshot, useBrowserPage } from '../../support/browser.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession, type SessionFixture } from '../../support/fixtures.js';
import { connectMcp } from '../../support/mcp.js';

const RESPOND = /\/api\/v1\/clarification\/[^/]+\/respond$/;

/** Two questions whose prompts carry `tag`, so a test finds its own bundle among the others. */
function questionsFor(tag: string) {
  return [
    {
      id: 'db',
      title: 'Database',
      prompt: `Which database should ${tag} use?`,
      options: [
        { option_id: 'pg', label: 'PostgreSQL', description: 'relational, already running' },
        { option_id: 'sqlite', label: 'SQLite', description: 'a file, nothing to run' },
      ],
    },
    { title: 'Deploy', prompt: `Deploy ${tag} today?`, options: [{ label: 'Yes' }, { label: 'No' }] },
  ];
}

async function ask(t: TestApp, session: SessionFixture, tag: string, context = `Setting up ${tag}.`): Promise<string> {
  const res = await request(t.baseUrl)
    .post('/api/v1/clarification/request')
    .send({ session_id: session.sessionId, questions: questionsFor(tag), context })
    .expect(200);
  return res.body.pending_id as string;
}

/** Every respond POST the page sends, with its JSON body. */
function recordResponds(page: Page): Array<{ url: string; body: unknown; request: Request }> {
  const sent: Array<{ url: string; body: unknown; request: Request }> = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && RESPOND.test(new URL(req.url()).pathname)) sent.push({ url: req.url(), body: req.postDataJSON(), request: req });
  });
  return sent;
}

async function openInbox(t: TestApp, page: Page): Promise<void> {
  await page.goto(`${t.baseUrl}/`);
  await page.locator('.feed', { hasText: 'Live' }).waitFor();
  await page.getByRole('heading', { name: 'Waiting for you' }).waitFor();
}

async function openBundle(t: TestApp, page: Page, pendingId: string): Promise<void> {
  await page.goto(`${t.baseUrl}/#/q/${encodeURIComponent(pendingId)}`);
  await page.locator('.feed', { hasText: 'Live' }).waitFor();
  await page.getByRole('button', { name: 'Submit answers' }).waitFor();
}

function card(page: Page, tag: string) {
  return page.getByRole('link', { name: new RegExp(tag) });
}

function option(page: Page, name: string) {
  return page.getByRole('checkbox', { name: new RegExp(`^${name}`) });
}

describeInChromium('browser inbox (AUTH_MODE=disabled)', () => {
  const web = useBrowserPage(() => startApp());

  it('W1/R1: a two-question bundle answered on the page — one POST — is what the agent’s blocked ask_user_question_kandev returns', async () => {
    const session = await createRunningSession(web.app, { taskTitle: 'Migrate the billing service', workspaceName: 'Operations' });
    const other = await createRunningSession(web.app, { taskTitle: 'Tune the lab cluster', workspaceName: 'Lab' });
    await ask(web.app, other, 'the-lab-cluster', 'Benchmarks finished overnight; two layouts fit the budget.');
    const agent = await connectMcp(web.app.baseUrl, { bearer: session.agentToken, path: '/mcp/session' });
    try {
      const asking = agent.call('ask_user_question_kandev', { questions: questionsFor('the-blocked-agent'), context: 'Choosing storage for the prototype.' });
      await openInbox(web.app, web.page);
      await card(web.page, 'the-blocked-agent').waitFor();
      await card(web.page, 'the-lab-cluster').waitFor();
      await saveScreenshot(web.page, 'inbox');

      const sent = recordResponds(web.page);
      await card(web.page, 'the-blocked-agent').click();
      await web.page.getByText('Choosing storage for the prototype.').waitFor();
      await option(web.page, 'SQLite').check();
      await option(web.page, 'PostgreSQL').check();
      await option(web.page, 'No').check();
      await web.page.locator('#answer-1').fill('not before the demo');
      await saveScreenshot(web.page, 'bundle');
      await web.page.getByRole('button', { name: 'Submit answers' }).click();

      await web.page.getByRole('heading', { name: 'Answered' }).waitFor();
      await web.page.getByText('Your answer was sent to the agent.').waitFor();
      const returned = await asking;
      expect(returned.isError).toBe(false);
      // The ask's result keeps the reference's shape: keyed by question id, the first selected option.
      expect(JSON.parse(returned.text)).toEqual({
        db: { selected_option: 'pg' },
        q2: { selected_option: 'q2_opt2', custom_text: 'not before the demo' },
      });
      expect(sent).toHaveLength(1);
      expect(sent[0]?.body).toEqual({
        answers: [
          { question_id: 'db', selected_options: ['pg', 'sqlite'], custom_text: '' },
          { question_id: 'q2', selected_options: ['q2_opt2'], custom_text: 'not before the demo' },
        ],
        rejected: false,
      });
    } finally {
      await agent.close();
    }
  });

  it('W2/W3 (the spec’s E2E case): an MCP answer wins while the page’s submit is on its way ⇒ 200 claimed:false, the page shows the winner’s answers, not its own', async () => {
    const session = await createRunningSession(web.app);
    const pendingId = await ask(web.app, session, 'the-duplicate');
    const external = await connectMcp(web.app.baseUrl);
    try {
      await openBundle(web.app, web.page, pendingId);
      await option(web.page, 'SQLite').check();
      await option(web.page, 'Yes').check();
      await web.page.locator('#answer-0').fill('the page’s own answer');
      const sent = recordResponds(web.page);
      // The page's POST is held until the external agent's answer has won the claim.
      await web.page.route(RESPOND, async (route) => {
        const winner = await external.call('answer_question_kandev', {
          pending_id: pendingId,
          answers: [
            { question_id: 'db', selected_options: ['pg'], custom_text: 'from the external agent' },
            { question_id: 'q2', selected_options: ['q2_opt2'] },
          ],
        });
        expect(winner.structured?.claimed).toBe(true);
        await route.continue();
      });
      const responded = web.page.waitForResponse(RESPOND);
      await web.page.getByRole('button', { name: 'Submit answers' }).click();
      const response = await responded;
      expect(response.status()).toBe(200);
      expect(await response.json()).toMatchObject({ success: true, claimed: false, status: 'answered' });

      await web.page.getByRole('heading', { name: 'Someone else answered first' }).waitFor();
      const summary = web.page.locator('.summary');
      await summary.getByText('from the external agent').waitFor();
      expect(await summary.innerText()).toContain('PostgreSQL');
      expect(await summary.innerText()).toContain('No');
      expect(await summary.innerText()).not.toContain('SQLite');
      expect(await web.page.getByText('the page’s own answer').count()).toBe(0);
      expect(await web.page.getByRole('button', { name: 'Submit answers' }).count()).toBe(0);
      expect(sent).toHaveLength(1);
    } finally {
      await external.close();
    }
  });

  it('W4/W4a: 2000 emoji (4000 UTF-16 units) are accepted and sent; a 2001st code point is stopped at the input with a message; no maxLength below 4000', async () => {
    const session = await createRunningSession(web.app);
    const pendingId = await ask(web.app, session, 'the-emoji');
    await openBundle(web.app, web.page, pendingId);
    const answer = web.page.locator('#answer-0');
    const maxLength = await answer.getAttribute('maxlength');
    expect(maxLength === null || Number(maxLength) >= 4000).toBe(true);

    const twoThousand = '😀'.repeat(2000);
    await answer.fill(twoThousand);
    await web.page.getByText('2000 / 2000').waitFor();
    expect(await web.page.getByRole('alert').filter({ hasText: 'limited to 2000' }).count()).toBe(0);

    await answer.press('End');
    await web.page.keyboard.insertText('😀');
    await web.page.getByRole('alert').filter({ hasText: 'limited to 2000 characters' }).waitFor();
    expect(await answer.inputValue()).toBe(twoThousand);
    await answer.fill(`${twoThousand}x`);
    expect(await answer.inputValue()).toBe(twoThousand);
    await web.page.getByText('2000 / 2000').waitFor();

    await option(web.page, 'Yes').check();
    const responded = web.page.waitForResponse(RESPOND);
    await web.page.getByRole('button', { name: 'Submit answers' }).click();
    const response = await responded;
    expect(response.status()).toBe(200);
    const body = (await response.json()) as { claimed: boolean; response: { answers: Array<{ custom_text: string }> } };
    expect(body.claimed).toBe(true);
    expect([...(body.response.answers[0]?.custom_text ?? '')]).toHaveLength(2000);
    await web.page.getByRole('heading', { name: 'Answered' }).waitFor();
  });

  it('Skip sends exactly {rejected: true, reject_reason: "User skipped"} and shows the bundle as skipped', async () => {
    const session = await createRunningSession(web.app);
    const pendingId = await ask(web.app, session, 'the-skip');
    await openBundle(web.app, web.page, pendingId);
    const sent = recordResponds(web.page);
    await web.page.getByRole('button', { name: 'Skip' }).click();
    await web.page.getByRole('heading', { name: 'Skipped' }).waitFor();
    expect(sent.map((one) => one.body)).toEqual([{ rejected: true, reject_reason: 'User skipped' }]);
    const { rows } = await web.app.db.query<{ status: string; reason: string }>(
      `SELECT metadata->>'status' AS status, metadata->'response'->>'reject_reason' AS reason FROM task_session_messages WHERE metadata->>'pending_id' = $1`,
      [pendingId],
    );
    expect(rows.map((row) => row.status)).toEqual(['rejected', 'rejected']);
  });

  it('409: a bundle superseded by a new turn before the submit arrives is "no longer active" and closed; one superseded while in view closes without a submit', async () => {
    const session = await createRunningSession(web.app);
    const pendingId = await ask(web.app, session, 'the-superseded');
    await openBundle(web.app, web.page, pendingId);
    await option(web.page, 'PostgreSQL').check();
    await option(web.page, 'Yes').check();
    await web.page.route(RESPOND, async (route) => {
      await request(web.app.baseUrl).post(`/api/v1/sessions/${session.sessionId}/turns`).expect(201);
      await route.continue();
    });
    const responded = web.page.waitForResponse(RESPOND);
    await web.page.getByRole('button', { name: 'Submit answers' }).click();
    expect((await responded).status()).toBe(409);
    await web.page.getByRole('heading', { name: 'No longer active' }).waitFor();
    expect(await web.page.getByRole('button', { name: 'Submit answers' }).count()).toBe(0);

    await web.page.unroute(RESPOND);
    const second = await ask(web.app, session, 'the-superseded-in-view');
    await openBundle(web.app, web.page, second);
    await request(web.app.baseUrl).post(`/api/v1/sessions/${session.sessionId}/turns`).expect(201);
    await web.page.getByText('The agent moved on to a new turn').waitFor();
    expect(await web.page.getByRole('button', { name: 'Submit answers' }).count()).toBe(0);
  });

  it('live: a new question appears without a reload, one answered elsewhere disappears; after the socket is cut the page says "Reconnecting…" and resumes with after = the last event id, missing nothing', async () => {
    let serverUp = true;
    let current: WebSocketRoute | undefined;
    const toServer: string[] = [];
    const fromServer: string[] = [];
    await web.page.routeWebSocket(/\/graphql$/, (ws) => {
      if (!serverUp) {
        void ws.close({ code: 1011, reason: 'test: the server is unreachable' });
        return;
      }
      current = ws;
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        toServer.push(String(message));
        server.send(message);
      });
      server.onMessage((message) => {
        fromServer.push(String(message));
        ws.send(message);
      });
    });
    let documents = 0;
    web.page.on('request', (req) => {
      if (req.resourceType() === 'document') documents += 1;
    });
    const session = await createRunningSession(web.app);
    await openInbox(web.app, web.page);

    const first = await ask(web.app, session, 'the-live-one');
    await card(web.page, 'the-live-one').waitFor();

    await request(web.app.baseUrl)
      .post(`/api/v1/clarification/${first}/respond`)
      .send({ answers: [{ question_id: 'db', selected_options: ['pg'] }, { question_id: 'q2', selected_options: ['q2_opt1'] }] })
      .expect(200);
    await card(web.page, 'the-live-one').waitFor({ state: 'detached' });

    const lastSeen = fromServer
      .map((frame) => JSON.parse(frame) as { type: string; payload?: { data?: { questionEvents?: { id: string; type: string } } } })
      .filter((frame) => frame.type === 'next')
      .map((frame) => frame.payload?.data?.questionEvents)
      .at(-1);
    expect(lastSeen?.type).toBe('ANSWERED');

    // Cut the socket; while it is down, another question is asked.
    serverUp = false;
    await current?.close({ code: 1011, reason: 'test: cut' });
    await web.page.locator('.feed', { hasText: 'Reconnecting…' }).waitFor();
    const session2 = await createRunningSession(web.app);
    await ask(web.app, session2, 'the-missed-one');
    const subscribesBefore = toServer.filter((frame) => frame.includes('"subscribe"')).length;
    serverUp = true;

    await web.page.locator('.feed', { hasText: 'Live' }).waitFor();
    await card(web.page, 'the-missed-one').waitFor();
    const resubscribe = toServer.filter((frame) => frame.includes('"subscribe"')).slice(subscribesBefore)[0];
    expect((JSON.parse(resubscribe ?? '{}') as { payload: { variables: { after: string } } }).payload.variables.after).toBe(lastSeen?.id);
    expect(documents).toBe(1);
  });

  it('live, no gap: a question asked after the page listed but before its subscription reached the server still appears (the feed subscribes from a position read before the list)', async () => {
    const held: Array<() => void> = [];
    let holding = true;
    await web.page.routeWebSocket(/\/graphql$/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        const forward = () => server.send(message);
        if (holding && String(message).includes('"subscribe"')) held.push(forward);
        else forward();
      });
      server.onMessage((message) => ws.send(message));
    });
    const listed = web.page.waitForResponse((response) => response.url().endsWith('/graphql') && (response.request().postData() ?? '').includes('pendingQuestions'));
    const session = await createRunningSession(web.app);
    await web.page.goto(`${web.app.baseUrl}/`);
    await web.page.locator('.feed', { hasText: 'Live' }).waitFor();
    await eventually(() => (held.length > 0 ? true : undefined), 10_000, 'the subscribe frame');
    await listed;

    await ask(web.app, session, 'the-gap-one');
    holding = false;
    held.splice(0).forEach((forward) => forward());
    await card(web.page, 'the-gap-one').waitFor();
  });

  it('live, no gap: a question the feed brings while the list is being read stays when that (older) list arrives', async () => {
    const heldLists: Array<() => Promise<void>> = [];
    await web.page.route(/\/graphql$/, async (route) => {
      if (!(route.request().postData() ?? '').includes('pendingQuestions')) return route.continue();
      const response = await route.fetch();
      heldLists.push(() => route.fulfill({ response }));
    });
    const session = await createRunningSession(web.app);
    await web.page.goto(`${web.app.baseUrl}/`);
    await web.page.locator('.feed', { hasText: 'Live' }).waitFor();
    // Both reads of the list (the page's own and the feed's re-list) were answered by the server, and are held.
    await eventually(() => (heldLists.length >= 2 ? true : undefined), 10_000, 'both list reads');

    const fetched = web.page.waitForResponse((response) => (response.request().postData() ?? '').includes('question(pendingId'));
    await ask(web.app, session, 'the-arrival');
    await fetched;
    await Promise.all(heldLists.splice(0).map((release) => release()));
    await web.page.getByRole('heading', { name: 'Waiting for you' }).waitFor();
    await card(web.page, 'the-arrival').waitFor();
  });

  it('outcomes: a 500 (resume refused, the answer rolled back) and a network error offer "Try again" and keep what was typed; a 400 is shown next to its question; an unknown id is "Not found"', async () => {
    const webhook = await refusingWebhook();
    try {
      const session = await createRunningSession(web.app, { resumeUrl: webhook.url });
      const pendingId = await ask(web.app, session, 'the-outcomes');
      await openBundle(web.app, web.page, pendingId);
      await option(web.page, 'SQLite').check();
      await option(web.page, 'No').check();
      await web.page.locator('#answer-1').fill('typed before the failures');
      const sent = recordResponds(web.page);

      // A network failure: nothing reached the server, everything typed is still there.
      await web.page.route(RESPOND, (route) => route.abort('internetdisconnected'), { times: 1 });
      await web.page.getByRole('button', { name: 'Submit answers' }).click();
      await web.page.getByRole('alert').filter({ hasText: 'could not be reached' }).waitFor();
      expect(await web.page.locator('#answer-1').inputValue()).toBe('typed before the failures');
      expect(await option(web.page, 'SQLite').isChecked()).toBe(true);

      // A 400 lands next to the field it names (the page itself never sends one, so it is simulated).
      await web.page.route(
        RESPOND,
        (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'answers[1].custom_text must be at most 2000 characters', code: 'VALIDATION_ERROR' }) }),
        { times: 1 },
      );
      await web.page.getByRole('button', { name: 'Try again' }).click();
      await web.page.locator('#question-1').getByText('answers[1].custom_text must be at most 2000 characters').waitFor();
      expect(await web.page.locator('#question-0').getByText('must be at most').count()).toBe(0);

      // The real 500: the resume webhook refuses, the claim is rolled back.
      await web.page.getByRole('button', { name: 'Submit answers' }).click();
      await web.page.getByRole('alert').filter({ hasText: 'could not be resumed' }).waitFor();
      expect(await web.page.locator('#answer-1').inputValue()).toBe('typed before the failures');
      webhook.accept = true;
      await web.page.getByRole('button', { name: 'Try again' }).click();
      await web.page.getByRole('heading', { name: 'Answered' }).waitFor();
      expect(webhook.statuses).toEqual([500, 202]);
      expect(sent).toHaveLength(4);
      expect(new Set(sent.map((one) => JSON.stringify(one.body))).size).toBe(1);

      await web.page.goto(`${web.app.baseUrl}/#/q/no-such-pending-id`);
      await web.page.getByRole('heading', { name: 'Not found' }).waitFor();
    } finally {
      await webhook.close();
    }
  });

  it('a respond 404 shows "Not found" and closes the form', async () => {
    const session = await createRunningSession(web.app);
    const pendingId = await ask(web.app, session, 'the-vanished');
    await openBundle(web.app, web.page, pendingId);
    await option(web.page, 'Yes').check();
    await option(web.page, 'SQLite').check();
    await web.page.route(RESPOND, (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: 'clarification request not found', code: 'NOT_FOUND' }) }),
    );
    await web.page.getByRole('button', { name: 'Submit answers' }).click();
    await web.page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await web.page.getByRole('button', { name: 'Submit answers' }).count()).toBe(0);
  });

  it('keyboard only, axe-clean: the inbox and a bundle in light and dark, at desktop and phone width (no sideways scrolling)', async () => {
    const session = await createRunningSession(web.app, { taskTitle: 'Rotate the signing keys', workspaceName: 'Security' });
    const pendingId = await ask(web.app, session, 'the-keyboard');
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [{ width: 1100, height: 800 }, { width: 360, height: 740 }]) {
        await web.page.emulateMedia({ colorScheme });
        await web.page.setViewportSize(viewport);
        await openInbox(web.app, web.page);
        await card(web.page, 'the-keyboard').waitFor();
        expect(await axeViolations(web.page)).toEqual([]);
        expect(await web.page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
        await openBundle(web.app, web.page, pendingId);
        expect(await axeViolations(web.page)).toEqual([]);
        expect(await web.page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
      }
    }
    await saveScreenshot(web.page, 'bundle-phone-dark');

    // Answer with the keyboard alone: Tab to the first option, Space to tick, type, Enter to submit.
    await web.page.setViewportSize({ width: 1100, height: 800 });
    await web.page.emulateMedia({ colorScheme: 'light' });
    await openInbox(web.app, web.page);
    await card(web.page, 'the-keyboard').focus();
    await web.page.keyboard.press('Enter');
    await web.page.getByRole('button', { name: 'Submit answers' }).waitFor();
    await focusByTab(web.page, option(web.page, 'PostgreSQL'));
    await web.page.keyboard.press('Space');
    await web.page.keyboard.press('Tab');
    await web.page.keyboard.press('Tab');
    await web.page.keyboard.type('typed with the keyboard');
    await focusByTab(web.page, option(web.page, 'Yes'));
    await web.page.keyboard.press('Space');
    await focusByTab(web.page, web.page.getByRole('button', { name: 'Submit answers' }));
    await web.page.keyboard.press('Enter');
    await web.page.getByRole('heading', { name: 'Answered' }).waitFor();
    expect(await web.page.locator('.summary').innerText()).toContain('typed with the keyboard');
  });

  it('GET / serves the built page: hashed assets cached for a year, index.html revalidated, nothing from another origin', async () => {
    const origins = new Set<string>();
    web.page.on('request', (req) => origins.add(new URL(req.url()).origin));
    await openInbox(web.app, web.page);
    expect([...origins].filter((origin) => origin !== web.app.baseUrl && !origin.startsWith('ws'))).toEqual([]);

    const index = await request(web.app.baseUrl).get('/').expect(200);
    expect(index.headers['content-type']).toMatch(/text\/html/);
    expect(index.headers['cache-control']).toBe('no-cache');
    const assets = [...index.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    expect(index.text).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    for (const asset of assets) {
      expect(asset).toMatch(/-[\w-]{8,}\.(js|css)$/);
      const res = await request(web.app.baseUrl).get(asset).expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    // Only the built files are routes: the API keeps its own 404 everywhere else.
    const missing = await request(web.app.baseUrl).get('/no-such-page').expect(404);
    expect(missing.body).toEqual(expect.objectContaining({ error: expect.any(String), code: 'NOT_FOUND' }));
  });
});

describeInChromium('browser inbox: grouping, order, workspace filter, load more', () => {
  let t: TestApp;
  let browser: BrowserSession;

  beforeAll(async () => {
    t = await startApp();
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('oldest first, grouped by task (titled, with the workspace), 50 at a time with "Load more", narrowed by the workspace filter', async () => {
    for (const [id, name] of [
      ['ws-ops', 'Operations'],
      ['ws-lab', 'Lab'],
    ]) {
      await t.db.query(`INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $2, '')`, [id, name]);
    }
    const bulk = await insertSession(t.db, { workspaceId: 'ws-ops' });
    await t.db.query(`UPDATE tasks SET title = 'Migrate the billing database' WHERE id = $1`, [bulk.taskId]);
    const bulkTurn = await insertTurn(t.db, { ...bulk, startedAt: at(-1000) });
    await insertBulkBundles(t.db, { ...bulk, turnId: bulkTurn }, 55, at(0));
    const lab = await insertSession(t.db, { workspaceId: 'ws-lab' });
    await t.db.query(`UPDATE tasks SET title = 'Tune the lab cluster' WHERE id = $1`, [lab.taskId]);
    const labTurn = await insertTurn(t.db, { ...lab, startedAt: at(-1000) });
    // Older than every bulk bundle: first on the first page, in its own group.
    await t.db.query(
      `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata, created_at)
       VALUES ('lab-row', $1, $2, $3, 'agent', 'clarification_request', 'q',
               jsonb_build_object('pending_id', 'lab-001', 'question_id', 'q1', 'question_index', 0, 'question_total', 1, 'status', 'pending',
                 'context', '', 'question', jsonb_build_object('id', 'q1', 'title', 'Cluster size', 'prompt', 'How many nodes?',
                 'options', jsonb_build_array(jsonb_build_object('option_id', 'three', 'label', 'Three'), jsonb_build_object('option_id', 'five', 'label', 'Five')))),
               $4)`,
      [lab.sessionId, lab.taskId, labTurn, at(-10)],
    );
    await syncBundleIndex(t.db);

    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('button', { name: 'Load more' }).waitFor();
      const hrefs = () => page.locator('.card__link').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
      const expectedFirst = ['#/q/lab-001', ...Array.from({ length: 49 }, (_, i) => `#/q/bulk-${String(i + 1).padStart(3, '0')}`)];
      expect(await hrefs()).toEqual(expectedFirst);
      // The titles come from the directory query, which may land after the list (the group shows its task id until then).
      const titled = ['Tune the lab cluster · Lab', 'Migrate the billing database · Operations'];
      const titles = () => page.locator('.task__title').allInnerTexts();
      await eventually(async () => (JSON.stringify(await titles()) === JSON.stringify(titled) ? true : undefined), 10_000, 'the task titles');
      expect(await titles()).toEqual(titled);

      await page.getByRole('button', { name: 'Load more' }).click();
      await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
      const allLoaded = ['#/q/lab-001', ...Array.from({ length: 55 }, (_, i) => `#/q/bulk-${String(i + 1).padStart(3, '0')}`)];
      // The button leaves before the second page is rendered: wait for the list, then compare it whole.
      await eventually(async () => ((await hrefs()).length === allLoaded.length ? true : undefined), 10_000, 'the second page');
      expect(await hrefs()).toEqual(allLoaded);

      await page.getByLabel('Workspace').selectOption({ label: 'Lab' });
      await eventually(async () => ((await hrefs()).length === 1 ? true : undefined), 10_000, 'the Lab filter');
      expect(await hrefs()).toEqual(['#/q/lab-001']);
      await page.getByLabel('Workspace').selectOption({ label: 'All workspaces' });
      await page.getByRole('button', { name: 'Load more' }).waitFor();
    } finally {
      await page.close();
    }
  });
});

/** Tabs forward until `target` has the focus (at most 40 presses). */
async function focusByTab(page: Page, target: ReturnType<Page['locator']>): Promise<void> {
  for (let presses = 0; presses < 40; presses += 1) {
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('the target was not reached with Tab');
}

interface RefusingWebhook {
  url: string;
  /** Refuses (500) until set. */
  accept: boolean;
  statuses: number[];
  close(): Promise<void>;
}

/** A resume webhook on 127.0.0.1 that refuses every resume until told to accept. */
async function refusingWebhook(): Promise<RefusingWebhook> {
  const hook: RefusingWebhook = { url: '', accept: false, statuses: [], close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = hook.accept ? 202 : 500;
      hook.statuses.push(status);
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/resume`;
  hook.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return hook;
}
