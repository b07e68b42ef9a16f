/**
 * A session's `resume_url` is an outbound target like any other. A private
 * one is a 400 naming the field at session creation (nothing created); a name that resolves to a
 * private address is refused at delivery and never contacted; a redirect is not followed; and the
 * answer's caller learns nothing about the target beyond "the agent could not be resumed".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import request from 'supertest';
import { HostResolver } from '#outbound';
import { startApp, type TestApp } from '../../support/app.js';
import { isRestored, rowsOf } from '../../support/bundle-state.js';
import { QUIET_LEASE } from '../../support/claim.js';
import { freshBundle } from '../../support/fixtures.js';
import { accept, hang, refuse, type Responder, startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

const ANSWERS = [
  { question_id: 'db', selected_options: ['pg'], custom_text: '' },
  { question_id: 'q2', selected_options: ['q2_opt1'], custom_text: '' },
];
/** What the caller of an answer is told whenever the resume was not accepted, whatever the target did. */
const DELIVERY_FAILED = { error: 'the agent could not be resumed; the answer can be retried', code: 'INTERNAL_ERROR' };
const RESUME_TIMEOUT_MS = 400;

describe('resume_url through the outbound policy', () => {
  /** Private targets refused (the default outside the tests). */
  let strict: TestApp;
  /** Private targets allowed: the receivers below listen on 127.0.0.1. */
  let open: TestApp;
  const receivers: WebhookReceiver[] = [];

  const receiver = async (respond: Responder) => {
    const started = await startWebhookReceiver(respond);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    const config = { resumeTimeoutMs: RESUME_TIMEOUT_MS, ...QUIET_LEASE };
    strict = await startApp({ config: { ...config, outbound: { allowPrivateTargets: false } } });
    open = await startApp({ config });
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await Promise.all([strict.close(), open.close()]);
  });

  /** Answers over REST: the status and the body the caller sees. */
  async function answer(t: TestApp, pendingId: string): Promise<{ status: number; body: unknown }> {
    const res = await request(t.baseUrl).post(`/api/v1/clarification/${pendingId}/respond`).send({ answers: ANSWERS });
    return { status: res.status, body: res.body as unknown };
  }

  /** Every name the strict app resolves answers 127.0.0.1 (a public-looking name re-pointed at the server's own network). */
  function resolveEverythingToLoopback(): void {
    jest.spyOn(strict.app.get(HostResolver), 'lookup').mockResolvedValue([{ address: '127.0.0.1', family: 4 }]);
  }

  it.each([
    'http://localhost:9000/resume',
    'http://127.0.0.1:9000/resume',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]:9000/resume',
    'http://[64:ff9b::7f00:1]/resume',
    'http://[2002:7f00:1::]/resume',
  ])('resume_url=%s is a 400 naming resume_url, and no session is created', async (resumeUrl) => {
    const workspace = await request(strict.baseUrl).post('/api/v1/workspaces').send({ name: 'ws' }).expect(201);
    const task = await request(strict.baseUrl).post('/api/v1/tasks').send({ title: 'task', workspace_id: workspace.body.id }).expect(201);
    const res = await request(strict.baseUrl).post(`/api/v1/tasks/${task.body.id}/sessions`).send({ resume_url: resumeUrl });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: {
        error: 'resume_url points at a loopback, private or link-local address (allowed only with OUTBOUND_ALLOW_PRIVATE_TARGETS=true)',
        code: 'VALIDATION_ERROR',
      },
    });
    const { rows } = await strict.db.query(`SELECT id FROM task_sessions WHERE task_id = $1`, [task.body.id]);
    expect(rows).toEqual([]);
  });

  it('a public resume_url is accepted at creation', async () => {
    await freshBundle(strict, { resumeUrl: 'https://hooks.example.com/parley' });
  });

  it('a name that resolves to a private address is refused at delivery and never contacted: the answer is rolled back', async () => {
    const target = await receiver(accept);
    const { pendingId } = await freshBundle(strict, { resumeUrl: `http://hooks.example.com:${new URL(target.url).port}/resume` });
    resolveEverythingToLoopback();

    expect(await answer(strict, pendingId)).toEqual({ status: 500, body: DELIVERY_FAILED });
    expect(target.posts).toEqual([]);
    expect(isRestored(await rowsOf(strict.db, pendingId))).toBe(true);
  });

  it('a redirect is not followed: its target is never contacted, and the answer is rolled back', async () => {
    const elsewhere = await receiver(accept);
    const redirects: string[] = [];
    const redirecting = http.createServer((req, res) => {
      redirects.push(req.url ?? '');
      req.resume();
      res.writeHead(307, { location: elsewhere.url }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const port = (redirecting.address() as AddressInfo).port;
      const { pendingId } = await freshBundle(open, { resumeUrl: `http://127.0.0.1:${port}/resume` });

      expect(await answer(open, pendingId)).toEqual({ status: 500, body: DELIVERY_FAILED });
      expect(redirects).toEqual(['/resume']);
      expect(elsewhere.posts).toEqual([]);
      expect(isRestored(await rowsOf(open.db, pendingId))).toBe(true);
    } finally {
      redirecting.closeAllConnections();
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
    }
  });

  it('the caller of the answer is told the same thing whether the target refused, timed out, is gone or was blocked', async () => {
    const refusing = await receiver(refuse);
    const hanging = await receiver(hang);
    const gone = await receiver(accept);
    await gone.close();
    const outcomes: Record<string, { status: number; body: unknown }> = {};
    for (const [name, url] of [
      ['refused', refusing.url],
      ['timed out', hanging.url],
      ['gone', gone.url],
    ] as const) {
      const { pendingId } = await freshBundle(open, { resumeUrl: url });
      outcomes[name] = await answer(open, pendingId);
    }
    const { pendingId } = await freshBundle(strict, { resumeUrl: 'http://hooks.example.com/resume' });
    resolveEverythingToLoopback();
    outcomes.blocked = await answer(strict, pendingId);

    const told = { status: 500, body: DELIVERY_FAILED };
    expect(outcomes).toEqual({ refused: told, 'timed out': told, gone: told, blocked: told });
    expect(refusing.posts).toHaveLength(1);
    expect(hanging.posts).toHaveLength(1);
  });
});
