/**
 * The browser inbox with AUTH_MODE=enabled, in a real headless Chromium: signing in with a personal
 * access token (keyboard only, axe-clean), the session cookie on every request (W1), signing out,
 * and two users whose workspaces never leak into each other's inbox — listed, live or by link.
 */
import type { Page } from 'playwright-core';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { axeViolations, describeInChromium, useBrowserPage } from '../../support/browser.js';
import { createRunningSession, createUser, type SessionFixture } from '../../support/fixtures.js';

const RESPOND = /\/api\/v1\/clarification\/[^/]+\/respond$/;

function questionsFor(tag: string) {
  return [{ id: 'go', title: 'Go ahead', prompt: `Go ahead with ${tag}?`, options: [{ label: 'Yes' }, { label: 'No' }] }];
}

async function ask(t: TestApp, session: SessionFixture, bearer: string, tag: string): Promise<string> {
  const res = await request(t.baseUrl)
    .post('/api/v1/clarification/request')
    .set('authorization', `Bearer ${bearer}`)
    .send({ session_id: session.sessionId, questions: questionsFor(tag) })
    .expect(200);
  return res.body.pending_id as string;
}

function card(page: Page, tag: string) {
  return page.getByRole('link', { name: new RegExp(tag) });
}

/** Signs in through the form with the keyboard alone: the token field has the focus, Enter submits. */
async function signInWithKeyboard(page: Page, token: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Personal access token').waitFor();
  expect(await page.getByLabel('Personal access token').evaluate((input) => input === input.ownerDocument.activeElement)).toBe(true);
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(token);
  await page.keyboard.press('Enter');
}

describeInChromium('browser inbox (AUTH_MODE=enabled)', () => {
  const web = useBrowserPage(() => startApp({ config: { authMode: 'enabled' } }), {
    beforeEachPage: (browser) => browser.context.clearCookies(),
  });
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };

  beforeAll(async () => {
    alice = await createUser(web.app, 'alice');
    bob = await createUser(web.app, 'bob');
  });

  it('signed out ⇒ the sign-in form (axe-clean, phone width too); an unknown token is refused next to the field; a PAT signs in and every respond POST carries the session cookie (W1)', async () => {
    const session = await createRunningSession(web.app, { bearer: alice.token, taskTitle: 'Alice’s task', workspaceName: 'Alice’s workspace' });
    const pendingId = await ask(web.app, session, alice.token, 'alice-first');

    await web.page.goto(`${web.app.baseUrl}/`);
    await web.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await axeViolations(web.page)).toEqual([]);
    await web.page.setViewportSize({ width: 360, height: 740 });
    await web.page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(web.page)).toEqual([]);
    await web.page.setViewportSize({ width: 1100, height: 800 });
    await web.page.emulateMedia({ colorScheme: 'light' });

    await signInWithKeyboard(web.page, 'parley_pat_not-a-real-token');
    await web.page.getByRole('alert').filter({ hasText: 'unknown or revoked' }).waitFor();
    expect(await web.page.getByLabel('Personal access token').getAttribute('aria-invalid')).toBe('true');

    await signInWithKeyboard(web.page, alice.token);
    await web.page.getByText('Signed in as alice').waitFor();
    await web.page.locator('.feed', { hasText: 'Live' }).waitFor();
    await card(web.page, 'alice-first').click();
    await web.page.getByRole('checkbox', { name: 'Yes' }).check();
    const posted = web.page.waitForRequest(RESPOND);
    await web.page.getByRole('button', { name: 'Submit answers' }).click();
    const respond = await posted;
    expect(new URL(respond.url()).pathname).toBe(`/api/v1/clarification/${pendingId}/respond`);
    expect((await respond.allHeaders()).cookie).toMatch(/(^|; )parley_session=/);
    await web.page.getByRole('heading', { name: 'Answered' }).waitFor();
  });

  it('a foreign workspace’s questions never appear: not in the list, not in the workspace filter, not live, and a link to one is "Not found"', async () => {
    const aliceSession = await createRunningSession(web.app, { bearer: alice.token, workspaceName: 'Alice’s lab' });
    const bobSession = await createRunningSession(web.app, { bearer: bob.token, workspaceName: 'Bob’s private workspace' });
    await ask(web.app, aliceSession, alice.token, 'alice-listed');
    const bobListed = await ask(web.app, bobSession, bob.token, 'bob-listed');

    await web.page.goto(`${web.app.baseUrl}/`);
    await signInWithKeyboard(web.page, alice.token);
    await web.page.locator('.feed', { hasText: 'Live' }).waitFor();
    await card(web.page, 'alice-listed').waitFor();
    expect(await card(web.page, 'bob-listed').count()).toBe(0);
    const workspaces = await web.page.getByLabel('Workspace').locator('option').allInnerTexts();
    expect(workspaces).toContain('Alice’s lab');
    expect(workspaces).not.toContain('Bob’s private workspace');

    // Live: Bob's question is asked first; once Alice's later one is shown, Bob's would have been too.
    const bobSecondSession = await createRunningSession(web.app, { bearer: bob.token });
    await ask(web.app, bobSecondSession, bob.token, 'bob-live');
    const aliceSecondSession = await createRunningSession(web.app, { bearer: alice.token });
    await ask(web.app, aliceSecondSession, alice.token, 'alice-live');
    await card(web.page, 'alice-live').waitFor();
    expect(await card(web.page, 'bob-live').count()).toBe(0);
    expect(await card(web.page, 'bob-listed').count()).toBe(0);

    await web.page.goto(`${web.app.baseUrl}/#/q/${bobListed}`);
    await web.page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await web.page.getByText('Go ahead with bob-listed?').count()).toBe(0);
  });

  it('sign-out returns to the sign-in form, the browser keeps no session cookie, and a reload stays signed out', async () => {
    await web.page.goto(`${web.app.baseUrl}/`);
    await signInWithKeyboard(web.page, bob.token);
    await web.page.getByText('Signed in as bob').waitFor();
    expect((await web.browser.context.cookies()).map((cookie) => cookie.name)).toContain('parley_session');

    await web.page.getByRole('button', { name: 'Sign out' }).click();
    await web.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await web.browser.context.cookies()).map((cookie) => cookie.name)).not.toContain('parley_session');
    await web.page.reload();
    await web.page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  // The server side of sign-out needs the opaque, revocable session cookie of the hostile-input
  // work: until it is merged the cookie is the token itself, which sign-out cannot end,
  // so this is declared failing. When that work lands this test fails: make it a plain `it`.
  it('sign-out ends the session on the server: the cookie it replaced no longer authenticates anything', async () => {
    await web.page.goto(`${web.app.baseUrl}/`);
    await signInWithKeyboard(web.page, alice.token);
    await web.page.getByText('Signed in as alice').waitFor();
    const cookie = (await web.browser.context.cookies()).find((candidate) => candidate.name === 'parley_session');
    expect(cookie).toBeDefined();
    const header = `parley_session=${cookie?.value}`;
    await request(web.app.baseUrl).get('/api/v1/auth/session').set('cookie', header).expect(200);

    await web.page.getByRole('button', { name: 'Sign out' }).click();
    await web.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await request(web.app.baseUrl).get('/api/v1/auth/session').set('cookie', header).expect(401);
    await request(web.app.baseUrl).get('/api/v1/clarification').set('cookie', header).expect(401);
  });
});
