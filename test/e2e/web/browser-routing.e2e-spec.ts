import type { Page } from 'playwright-core';
import { startApp, type TestApp } from '../../support/app.js';
import { type BrowserSession, describeInChromium, openBrowser } from '../../support/browser.js';
import { signIn } from '../../support/fixtures.js';
import { askRouted, ONE_QUESTION, team, type Team } from '../../support/routing.js';

/**
 * Routing on the inbox page (rule Q1): a person who sees a routed bundle but is not among its
 * answerers is told who it is assigned to and gets no form; an answerer gets the form, with the
 * assignment shown, and — on a quorum — is told their vote was recorded.
 */
describeInChromium('routing, on the inbox page', () => {
  let t: TestApp;
  let browser: BrowserSession;
  let crew: Team;
  let page: Page;

  async function as(token: string): Promise<Page> {
    const cookie = await signIn(t, token);
    const [name, value] = cookie.split('=') as [string, string];
    await browser.context.clearCookies();
    await browser.context.addCookies([{ name, value, url: t.baseUrl }]);
    return browser.context.newPage();
  }

  async function open(pendingId: string): Promise<void> {
    await page.goto(`${t.baseUrl}/#/q/${encodeURIComponent(pendingId)}`);
    await page.locator('.feed', { hasText: 'Live' }).waitFor();
  }

  beforeAll(async () => {
    t = await startApp({ config: { authMode: 'enabled' } });
    browser = await openBrowser();
    crew = await team(t, 2, 'web');
  });
  afterEach(async () => {
    await page?.close();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a person not among the answerers sees "assigned to …" and no form', async () => {
    const [alice, bob] = crew.members as [Team['members'][number], Team['members'][number]];
    const asked = await askRouted(t, crew, [{ ...ONE_QUESTION[0], prompt: 'Assigned question' }], { answerers: { user_ids: [alice.id] } }).expect(200);
    page = await as(bob.token);
    await page.goto(`${t.baseUrl}/`);
    await page.locator('.card', { hasText: 'Assigned question' }).waitFor();
    expect(await page.locator('.card', { hasText: 'Assigned question' }).textContent()).toContain(`Assigned to ${alice.name}`);
    await open(asked.body.pending_id as string);
    await page.getByRole('heading', { name: 'Assigned to someone else' }).waitFor();
    expect(await page.locator('.notice').textContent()).toContain(`Assigned to ${alice.name}`);
    expect(await page.getByRole('button', { name: 'Submit answers' }).count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
  });

  it('an answerer gets the form with the assignment shown, and a quorum vote is "Vote recorded"', async () => {
    const [alice, bob] = crew.members as [Team['members'][number], Team['members'][number]];
    const asked = await askRouted(t, crew, [{ ...ONE_QUESTION[0], prompt: 'Quorum question' }], {
      answerers: { user_ids: [alice.id, bob.id] },
      required_answers: 2,
    }).expect(200);
    page = await as(alice.token);
    await open(asked.body.pending_id as string);
    expect(await page.locator('.bundle__assigned').textContent()).toBe(`Assigned to ${alice.name}, ${bob.name} · 2 identical answers needed`);
    await page.getByRole('checkbox', { name: /^Postgres/ }).check();
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByRole('heading', { name: 'Vote recorded' }).waitFor();
    expect(await page.locator('.notice').textContent()).toContain('1 so far');
  });
});
