import type { Page } from 'playwright-core';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { type BrowserSession, describeInChromium, openBrowser } from '../../support/browser.js';
import { createRunningSession, type SessionFixture, TWO_QUESTIONS } from '../../support/fixtures.js';
import { connectMcp } from '../../support/mcp.js';

/**
 * "Who answered" on the inbox page: after answering on the page, and when opening a bundle
 * someone else resolved, the page says who won and through which surface.
 */
async function ask(t: TestApp, session: SessionFixture): Promise<string> {
  const res = await request(t.baseUrl).post('/api/v1/clarification/request').send({ session_id: session.sessionId, questions: TWO_QUESTIONS }).expect(200);
  return res.body.pending_id as string;
}

async function openBundle(t: TestApp, page: Page, pendingId: string): Promise<void> {
  await page.goto(`${t.baseUrl}/#/q/${encodeURIComponent(pendingId)}`);
  await page.locator('.feed', { hasText: 'Live' }).waitFor();
}

describeInChromium('who answered, on the inbox page', () => {
  let t: TestApp;
  let browser: BrowserSession;
  let page: Page;

  beforeAll(async () => {
    t = await startApp();
    browser = await openBrowser();
  });
  beforeEach(async () => {
    page = await browser.context.newPage();
  });
  afterEach(async () => {
    await page.close();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('answered on the page: "Answered by … via the inbox"', async () => {
    const pendingId = await ask(t, await createRunningSession(t));
    await openBundle(t, page, pendingId);
    await page.getByRole('checkbox', { name: /^SQLite/ }).check();
    await page.getByRole('checkbox', { name: /^Yes/ }).check();
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByRole('heading', { name: 'Answered' }).waitFor();
    const line = page.locator('.resolved-by');
    await line.waitFor();
    expect(await line.textContent()).toMatch(/^Answered by someone \(authentication is off\) via the inbox at /);
  });

  it('opened after an answer over MCP won: "Already skipped … via MCP"', async () => {
    const pendingId = await ask(t, await createRunningSession(t));
    const mcp = await connectMcp(t.baseUrl);
    try {
      await mcp.call('answer_question_kandev', { pending_id: pendingId, rejected: true, reason: 'not now' });
    } finally {
      await mcp.close();
    }
    await openBundle(t, page, pendingId);
    await page.getByRole('heading', { name: 'Already skipped' }).waitFor();
    expect(await page.locator('.resolved-by').textContent()).toMatch(/^Skipped by someone \(authentication is off\) via MCP at /);
  });
});
