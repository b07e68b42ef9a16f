/**
 * `npm run chat:fakes` as docs/channels.md walks a person through it: the tool is started, the built
 * server is started with the environment it printed, accounts are linked with the CLI, an agent asks,
 * and a person clicks on the cards the tool shows by typing into it — once on Slack, once on Telegram.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { createTestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import { createRunningSession } from '../../support/fixtures.js';
import { FAST_LEASE, runCli } from '../../support/replicas.js';
import { freePort, killAllServers, launchServer, type ServerProcess, stopServer, tempDir, waitHealthy } from '../../support/server-process.js';

const CHAT_FAKES_MAIN = fileURLToPath(new URL('../../../dist/apps/chat-fakes/src/main.js', import.meta.url));
const QUESTION = [{ id: 'db', prompt: 'Which database?', options: [{ option_id: 'pg', label: 'PostgreSQL' }, { option_id: 'sqlite', label: 'SQLite' }] }];

describe('npm run chat:fakes', () => {
  let fakes: ChildProcessWithoutNullStreams;
  let output = '';
  let server: ServerProcess;
  let databaseUrl: string;

  const printed = (text: string, what: string) => eventually(() => (output.includes(text) ? true : undefined), 20_000, what);

  beforeAll(async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PARLEY_URL: `http://127.0.0.1:${port}`, CHAT_FAKES_SLACK_PORT: '0', CHAT_FAKES_TELEGRAM_PORT: '0' };
    delete env.NODE_OPTIONS;
    fakes = spawn(process.execPath, [CHAT_FAKES_MAIN], { env, stdio: 'pipe' });
    fakes.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    await printed('Type: slack', 'the tool is listening');
    // The environment exactly as printed, for the server.
    const exported = Object.fromEntries([...output.matchAll(/^export (\w+)=(.*)$/gm)].map((match) => [match[1], match[2]])) as Record<string, string>;
    expect(Object.keys(exported)).toEqual(
      expect.arrayContaining(['SLACK_API_URL', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'TELEGRAM_API_URL', 'TELEGRAM_BOT_TOKEN', 'OUTBOUND_ALLOW_PRIVATE_TARGETS']),
    );
    databaseUrl = await createTestDatabase();
    server = launchServer({ env: { DATABASE_URL: databaseUrl, ...FAST_LEASE, ...exported }, dataDir: await tempDir(), port });
    await waitHealthy(server);
  });
  afterAll(async () => {
    fakes.stdin.end('quit\n');
    await stopServer(server).catch(() => undefined);
    await killAllServers();
  });

  it('a person answers an agent’s bundle by clicking on the Slack card, then another on the Telegram card', async () => {
    const user = await request(server.baseUrl).post('/api/v1/admin/users').send({ name: 'alice' }).expect(201);
    const userId = user.body.id as string;
    expect((await runCli(databaseUrl, ['users:link', '--user', userId, '--slack', 'UALICE'])).code).toBe(0);
    expect((await runCli(databaseUrl, ['users:link', '--user', userId, '--telegram', '1001'])).code).toBe(0);
    const fixture = await createRunningSession(server);
    const ask = async () =>
      (await request(server.baseUrl).post('/api/v1/clarification/request').send({ session_id: fixture.sessionId, questions: QUESTION }).expect(200)).body
        .pending_id as string;
    const resolvedBy = (pendingId: string) =>
      eventually(
        async () => (await request(server.baseUrl).get(`/api/v1/clarification/${pendingId}`).expect(200)).body.resolved_by ?? undefined,
        20_000,
        'the answer',
      );

    const first = await ask();
    await printed('[slack card 1] posted', 'the Slack card');
    await printed('(2) SQLite  →  slack 1 2 <SLACK_USER_ID>', 'the Slack buttons');
    await printed('[telegram card 1] posted', 'the Telegram card');
    fakes.stdin.write('slack 1 2 UALICE\n');
    expect(await resolvedBy(first)).toMatchObject({ user_id: userId, surface: 'slack' });
    await printed('[slack card 1] edited', 'the Slack card edited');
    await printed('[telegram card 1] edited', 'the Telegram card edited');
    expect(output).toContain('Answered by alice via Slack: SQLite');

    const second = await ask();
    await printed('[telegram card 2] posted', 'the second Telegram card');
    await printed('(1) PostgreSQL  →  telegram 2 1 <TELEGRAM_USER_ID>', 'the Telegram buttons');
    fakes.stdin.write('telegram 2 1 1001\n');
    expect(await resolvedBy(second)).toMatchObject({ user_id: userId, surface: 'telegram' });
    await printed('[slack card 2] edited', 'the second Slack card edited');
    expect(output).toContain('Answered by alice via Telegram: PostgreSQL');
  });
});
