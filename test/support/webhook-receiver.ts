import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The body a resume hand-off carries (see ResumeDispatcher). */
export interface ResumeBody {
  session_id: string;
  task_id: string;
  pending_id: string;
  turn_id: string;
  prompt: string;
  response: { answers: unknown[]; rejected: boolean; reject_reason: string };
  /** The winning answer's signed receipt (docs/receipts.md). */
  receipt?: string;
}

/** One POST the receiver got, and how it was answered (0 while held or never answered). */
export interface ReceivedPost {
  idempotencyKey: string | undefined;
  body: ResumeBody;
  /** The body as sent (what a signature covers) and the request's headers (outbound webhooks). */
  raw: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

/** A status to answer with, or `'hang'` to never answer. */
export type Reply = number | 'hang';

/** Decides how to answer a POST; `index` counts the POSTs received so far (from 0). */
export type Responder = (post: ReceivedPost, index: number) => Reply | Promise<Reply>;

export const accept: Responder = () => 202;
export const refuse: Responder = () => 503;
export const hang: Responder = () => 'hang';

/** Answers `status` after `ms` (a slow orchestrator; the delay is the receiver's behaviour, not a sync). */
export function slow(ms: number, status = 202): Responder {
  return () => new Promise<Reply>((resolve) => setTimeout(() => resolve(status), ms));
}

/** Refuses and accepts in turn, starting with a refusal. */
export const flaky: Responder = (_post, index) => (index % 2 === 0 ? 503 : 202);

/** Holds every POST until `release()`, then answers them all with `status`. */
export function held(status = 202): { responder: Responder; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { responder: async () => (await released, status), release };
}

export interface WebhookReceiver {
  url: string;
  /** Every POST in arrival order. */
  posts: ReceivedPost[];
  respond: Responder;
  /** The POSTs for one bundle. */
  postsFor(pendingId: string): ReceivedPost[];
  close(): Promise<void>;
}

/**
 * A resume webhook on 127.0.0.1 (node:http) that records every POST with its `Idempotency-Key` and
 * answers as `respond` says — refuse, accept, hang, slowly, or flipping between them.
 */
export async function startWebhookReceiver(respond: Responder = accept): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = {
    url: '',
    posts: [],
    respond,
    postsFor: (pendingId) => receiver.posts.filter((post) => post.body.pending_id === pendingId),
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      const raw = Buffer.concat(chunks).toString('utf8');
      const post: ReceivedPost = {
        idempotencyKey: Array.isArray(key) ? key[0] : key,
        body: JSON.parse(raw) as ResumeBody,
        raw,
        headers: req.headers,
        status: 0,
      };
      const index = receiver.posts.length;
      receiver.posts.push(post);
      void Promise.resolve(receiver.respond(post, index)).then((reply) => {
        if (reply === 'hang' || res.destroyed) return;
        post.status = reply;
        res.writeHead(reply, { 'content-type': 'application/json' }).end('{}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/resume`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
