/**
 * The question as an MCP App, in headless Chromium: ext-apps' AppBridge hosts the app page
 * (ui://parley/question, as /mcp serves it) in sandboxed frames, as an AI client does, and proxies its
 * tool calls to Parley over a real MCP connection (test/support/mcp-app-host.ts). The app renders a
 * bundle with the inbox's own form, answers it, and a second instance on the same bundle, answering
 * after, is shown the winner's answer.
 */
import request from 'supertest';
import { startApp, type TestApp } from '../../support/app.js';
import { describeInChromium, useBrowserPage } from '../../support/browser.js';
import { freshBundle } from '../../support/fixtures.js';
import { buildAppHost, openAppHost, showApp } from '../../support/mcp-app-host.js';
import { connectMcpV2, type V2Connection } from '../../support/mcp-v2.js';

describeInChromium('the question app in an MCP Apps host (Chromium, ext-apps AppBridge)', () => {
  const web = useBrowserPage<TestApp>(() => startApp());
  let hostScript: string;
  const connections: V2Connection[] = [];

  beforeAll(async () => {
    hostScript = await buildAppHost();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
  });

  it('renders the bundle, answers it in the app (mcp_app); a second instance answering after is shown the winner', async () => {
    const t = web.app;
    const { pendingId } = await freshBundle(t);
    const [alice, bob] = [await connectMcpV2(t.baseUrl, '2026-07-28'), await connectMcpV2(t.baseUrl, '2026-07-28')];
    connections.push(alice, bob);
    const { contents } = await alice.client.readResource({ uri: 'ui://parley/question' });
    const html = (contents[0] as { text: string }).text;
    const shown = await alice.client.callTool({ name: 'show_question', arguments: { pending_id: pendingId } });

    await openAppHost(web.page, hostScript, { a: alice, b: bob });
    await showApp(web.page, 'a', html, shown);
    await showApp(web.page, 'b', html, shown);
    const first = web.page.frameLocator('#app-a');
    const second = web.page.frameLocator('#app-b');
    await first.getByText('Which database?').waitFor();
    await second.getByText('Which database?').waitFor();

    await first.getByLabel('SQLite').check();
    await first.getByLabel('No').check();
    await first.getByRole('button', { name: 'Submit answers' }).click();
    await first.getByRole('heading', { name: 'Answered' }).waitFor();

    await second.getByLabel('PostgreSQL').check();
    await second.getByLabel('Yes').check();
    await second.getByRole('button', { name: 'Submit answers' }).click();
    await second.getByRole('heading', { name: 'Someone else answered first' }).waitFor();
    expect(await second.locator('.summary').innerText()).toContain('SQLite');
    await second.getByText('via their AI client').waitFor();

    const read = await request(t.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200);
    expect(read.body).toMatchObject({ status: 'answered', resolved_by: { surface: 'mcp_app' } });
    expect(read.body.response.answers[0]).toMatchObject({ question_id: 'db', selected_options: ['sqlite'] });
  });
});
