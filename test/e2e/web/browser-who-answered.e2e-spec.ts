import type { Page } from 'playwright-core';
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { describeInChromium, useBrowserPage } from '../../support/browser.js';
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
  const web = useBrowserPage(() => startApp());

  it('answered on the page: "Answered by … via the inbox"', async () => {
    const pendingId = await ask(web.app, await createRunningSession(web.app));
    await openBundle(web.app, web.page, pendingId);
    await web.page.getByRole('checkbox', { name: /^SQLite/ }).check();
    await web.page.getByRole('checkbox', { name: /^Yes/ }).check();
    await web.page.getByRole('button', { name: 'Submit answers' }).click();
    await web.page.getByRole('heading', { name: 'Answered' }).waitFor();
    const line = web.page.locator('.resolved-by');
    await line.waitFor();
    expect(await line.textContent()).toMatch(/^Answered by someone \(authentication is off\) via the inbox at /);
  });

  it('opened after an answer over MCP won: "Already skipped … via MCP"', async () => {
    const pendingId = await ask(web.app, await createRunningSession(web.app));
    const mcp = await connectMcp(web.app.baseUrl);
    try {
      await mcp.call('answer_question_kandev', { pending_id: pendingId, rejected: true, reason: 'not now' });
    } finally {
      await mcp.close();
    }
    await openBundle(web.app, web.page, pendingId);
    await web.page.getByRole('heading', { name: 'Already skipped' }).waitFor();
    expect(await web.page.locator('.resolved-by').textContent()).toMatch(/^Skipped by someone \(authentication is off\) via MCP at /);
  });
});
