import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResumeLedger } from './resume.ledger.js';
import type { Answer } from './wire.types.js';

/** What the server POSTs to a session's `resume_url` when an answer finds no live waiter. */
export interface ResumePayload {
  session_id: string;
  task_id: string;
  pending_id: string;
  /** The successor turn, also the request's `Idempotency-Key`. */
  turn_id: string;
  prompt: string;
  response: { answers: Answer[]; rejected: boolean; reject_reason: string };
}

const MAX_BODY_BYTES = 1 << 20;

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

function reply(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function isPayload(value: unknown): value is ResumePayload {
  const payload = value as Partial<ResumePayload> | null;
  return typeof payload?.pending_id === 'string' && typeof payload.turn_id === 'string' && typeof payload.response === 'object';
}

/**
 * A `node:http` request handler for the resume webhook that honours the hand-off's Idempotency-Key:
 * the first delivery of a key is recorded in the ledger and passed to `onResume`; a re-send of the
 * same key (the server re-sends after a crash, with the same key) is acknowledged and not passed on.
 * When `onResume` throws, the hand-over is forgotten and a 500 returned: the server rolls the answer
 * back (the bundle is pending again). `onResume` must finish within the server's RESUME_TIMEOUT_MS —
 * record or enqueue the resume, do not run the agent inside it.
 */
export function createResumeReceiver(options: {
  ledger: ResumeLedger;
  onResume: (payload: ResumePayload, idempotencyKey: string) => Promise<void> | void;
}): (request: IncomingMessage, response: ServerResponse) => void {
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || typeof key !== 'string' || key === '') return reply(response, 400, { error: 'a POST with an Idempotency-Key header is expected' });
    const payload = await readJson(request).catch(() => undefined);
    if (!isPayload(payload)) return reply(response, 400, { error: 'not a resume payload' });
    const claimed = await options.ledger.claim({ pendingId: payload.pending_id, handoffKey: key, at: new Date().toISOString() });
    if (!claimed) {
      const known = await options.ledger.get(payload.pending_id);
      return known?.handoffKey === key ? reply(response, 200, { duplicate: true }) : reply(response, 409, { error: 'this answer was already handed over under another key' });
    }
    try {
      await options.onResume(payload, key);
    } catch (error) {
      await options.ledger.release(payload.pending_id);
      return reply(response, 500, { error: error instanceof Error ? error.message : String(error) });
    }
    reply(response, 200, { accepted: true });
  };
  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, { error: String(error) });
    });
  };
}
