import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { describeInChromium, useBrowserPage } from '../../support/browser.js';
import { createRunningSession, TWO_QUESTIONS } from '../../support/fixtures.js';

/**
 * The action panel on the inbox page (docs/receipts.md): a bundle asked with an action shows, above
 * its questions, the action's name and its arguments pretty-printed — as text, whatever they contain,
 * bidirectional controls shown as marked escapes — and answering it on the page issues the receipt
 * bound to that action. A bundle asked without one shows no panel.
 */
const ACTION = { name: 'deploy', arguments: { env: 'prod', replicas: 3, note: '<img src=x onerror="window.pwned=1">' } };

async function ask(t: TestApp, action?: { name: string; arguments: Record<string, unknown> }): Promise<string> {
  const session = await createRunningSession(t);
  const res = await request(t.baseUrl)
    .post('/api/v1/clarification/request')
    .send({ session_id: session.sessionId, questions: TWO_QUESTIONS, ...(action ? { action } : {}) })
    .expect(200);
  return res.body.pending_id as string;
}

describeInChromium('the action panel, on the inbox page', () => {
  const web = useBrowserPage(() => startApp());

  async function open(pendingId: string): Promise<void> {
    await web.page.goto(`${web.app.baseUrl}/#/q/${encodeURIComponent(pendingId)}`);
    await web.page.locator('.feed', { hasText: 'Live' }).waitFor();
    await web.page.getByRole('button', { name: 'Submit answers' }).waitFor();
  }

  it('shows the action above the questions, its arguments pretty-printed as text; the answer’s receipt is bound to it', async () => {
    const pendingId = await ask(web.app, ACTION);
    await open(pendingId);
    const panel = web.page.getByRole('region', { name: 'Action to authorize' });
    await panel.waitFor();
    expect(await panel.locator('.bundle__action-name').textContent()).toBe('deploy');
    // PostgreSQL's jsonb keeps its own key order, so the text is compared as parsed, then as pretty-printed.
    const shownArguments = (await panel.locator('.bundle__action-arguments').textContent()) ?? '';
    expect(JSON.parse(shownArguments)).toEqual(ACTION.arguments);
    expect(shownArguments).toBe(JSON.stringify(JSON.parse(shownArguments), null, 2));
    // Shown as text: the markup in an argument is neither parsed nor run.
    expect(await panel.locator('img').count()).toBe(0);
    expect(await web.page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    // Above the questions.
    const order = await web.page.locator('.bundle__action, fieldset.question').evaluateAll((nodes) => nodes.map((node) => node.className));
    expect(order[0]).toBe('bundle__action');
    expect(order.slice(1)).toEqual(TWO_QUESTIONS.map(() => 'question'));

    await web.page.getByRole('checkbox', { name: /^SQLite/ }).check();
    await web.page.getByRole('checkbox', { name: /^Yes/ }).check();
    await web.page.getByRole('button', { name: 'Submit answers' }).click();
    await web.page.getByRole('heading', { name: 'Answered' }).waitFor();

    const { receipt } = (await request(web.app.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200)).body as { receipt: string };
    const verify = (action: unknown) => request(web.app.baseUrl).post('/api/v1/receipts/verify').send({ receipt, action }).expect(200);
    expect((await verify(ACTION)).body).toMatchObject({ valid: true, claims: { sub: pendingId, outcome: 'answered', surface: 'web' } });
    expect((await verify({ ...ACTION, arguments: { ...ACTION.arguments, env: 'staging' } })).body).toEqual({ valid: false, reason: 'action_mismatch' });
  });

  it('shows every bidirectional control in the arguments as a marked escape, so the text reads as what is approved', async () => {
    const controls = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
    const spoofed = { name: 'send', arguments: { attachment: 'invoice\u202Efdp.exe', ['to\u2067']: 'ops', all: controls.join('|') } };
    const pendingId = await ask(web.app, spoofed);
    await open(pendingId);
    const panel = web.page.getByRole('region', { name: 'Action to authorize' });
    await panel.waitFor();
    const shown = (await panel.locator('.bundle__action-arguments').textContent()) ?? '';
    // No control reaches the page as itself; each is its escape, which JSON reads back as the control.
    expect(shown).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/u);
    expect(shown).toContain('"attachment": "invoice\\u202Efdp.exe"');
    expect(shown).toContain('"to\\u2067": "ops"');
    expect(JSON.parse(shown)).toEqual(spoofed.arguments);
    const marked = await panel.locator('.bundle__action-arguments mark.bidi-control').allTextContents();
    const escapes = controls.map((control) => `\\u${(control.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);
    expect(marked.sort()).toEqual(['\\u202E', '\\u2067', ...escapes].sort());
    // Marked: it does not look like the text around it.
    const looks = await panel.locator('mark.bidi-control').first().evaluate((node) => node.ownerDocument.defaultView?.getComputedStyle(node).borderTopStyle);
    expect(looks).toBe('solid');
    expect(await panel.locator('.bundle__action-name').textContent()).toBe('send');

    // The name itself may not hold one: such an ask is refused.
    const session = await createRunningSession(web.app);
    await request(web.app.baseUrl)
      .post('/api/v1/clarification/request')
      .send({ session_id: session.sessionId, questions: TWO_QUESTIONS, action: { name: 'send\u202Eexe.pdf', arguments: {} } })
      .expect(400, { error: 'action.name must not contain the bidirectional control character U+202E', code: 'VALIDATION_ERROR' });
  });

  it('shows no panel for a bundle asked without an action', async () => {
    await open(await ask(web.app));
    expect(await web.page.locator('.bundle__action').count()).toBe(0);
    expect(await web.page.getByText('Answering authorizes').count()).toBe(0);
  });
});
