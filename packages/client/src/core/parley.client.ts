import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.policy.js';
import { BundleHandle, type BundleOperations } from './bundle.handle.js';
import { findHandoff, recoverRejectReason } from './handoff.reader.js';
import type { Outcome, ResumedOutcome } from './outcome.types.js';
import { ParleyAlreadyResumedError } from './parley.errors.js';
import { type LedgerEntry, MemoryResumeLedger, type ResumeLedger } from './resume.ledger.js';
import { withRetries } from './retry.policy.js';
import { Transport } from './transport.js';
import { waitForOutcome, type WaitCalls } from './wait.loop.js';
import type { Answer, BundleView, PendingBundle, Question, RespondResult, Routing, VoteReceipt } from './wire.types.js';
import { ProjectionApi } from './projection.api.js';
import { findBundleByMarker } from './bundle.finder.js';
import { type ReceiptAction, type ReceiptExpectation, type ReceiptVerdict, type Redemption, verifyReceipt, type VerifyReceiptOptions } from './receipt.verifier.js';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

export interface ParleyOptions {
  /** The server's base URL (default http://127.0.0.1:3000). */
  url?: string;
  /** A personal access token (or a session agent token where a route accepts one); none with auth disabled. */
  token?: string;
  /** How a restarted agent remembers which answers it was already given (default: in memory). */
  ledger?: ResumeLedger;
  /** Backoff between retries (ms): `initialMs` doubling up to `maxMs`, jittered. */
  backoff?: Partial<BackoffOptions>;
  /** Tries of a call other than waiting while the server is unreachable or failing (default 4). Waiting retries until its signal fires. */
  attempts?: number;
  fetch?: typeof globalThis.fetch;
}

export interface AskInput {
  sessionId: string;
  /** Must be the session's task when given. */
  taskId?: string;
  /** 1–4 questions of 2–6 options each. */
  questions: Question[];
  /** Why the agent asks: shown to the person answering (at most 20,000 characters). */
  context?: string;
  /** The bundle expires unanswered after this many seconds (1 to 30 days). */
  expiresInSeconds?: number;
  /** Who may answer, how many identical answers resolve it, and the escalation steps. */
  routing?: Routing;
  /** What an answer authorizes (name ≤ 200 characters, arguments a JSON object ≤ 64 KB): its digest is signed into the receipt. */
  action?: ReceiptAction;
  signal?: AbortSignal;
}

/** An answer as given to `respond`: options and text may be left out (none, ""). */
export type AnswerInput = Pick<Answer, 'question_id'> & Partial<Omit<Answer, 'question_id'>>;
export type Rejection = { reject: true; reason?: string };

/** The result of answering: whether this call won, and the one response that did. */
export interface Resolution {
  claimed: boolean;
  /** `pending`: a vote of a routed bundle was recorded and the bundle is not resolved yet (see `vote`). */
  status: 'answered' | 'rejected' | 'pending';
  answers: Answer[];
  rejected: boolean;
  rejectReason: string;
  /** For a recorded vote that did not resolve the bundle. */
  vote?: VoteReceipt;
  /** The resolution's signed receipt (the same for the winner and every loser); null for a vote that did not resolve it. */
  receipt: string | null;
}

export interface PendingQuery {
  workspaceId?: string;
  /** Only bundles created at or after this instant. */
  createdSince?: Date | string;
  /** Bundles per page (1–200, the server's default 50). */
  pageSize?: number;
  signal?: AbortSignal;
}

/** The typed client of a Parley server: ask bundles, wait for and resume with their one answer, answer, list. */
export class Parley implements BundleOperations {
  readonly url: string;
  readonly ledger: ResumeLedger;
  /** Workspaces, tasks, sessions and turns: what an orchestrator files before its agent asks. */
  readonly projection: ProjectionApi;
  private readonly transport: Transport;
  private readonly backoff: BackoffOptions;
  private readonly attempts: number;
  private readonly waitCalls: WaitCalls;

  constructor(options: ParleyOptions = {}) {
    this.url = options.url ?? DEFAULT_URL;
    this.transport = new Transport(this.url, options.token, options.fetch);
    this.ledger = options.ledger ?? new MemoryResumeLedger();
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.attempts = options.attempts ?? 4;
    this.projection = new ProjectionApi(this.transport, (call, signal) => this.retried(call, signal));
    const api = this.transport.api;
    this.waitCalls = {
      waitOnce: (id, signal) => this.transport.send(() => api.GET('/api/v1/clarification/{id}/wait', { params: { path: { id } }, signal }), signal),
      read: (id, signal) => this.get(id, { signal, attempts: 1 }),
    };
  }

  private retried<T>(call: () => Promise<T>, signal?: AbortSignal, attempts = this.attempts): Promise<T> {
    return withRetries(call, { attempts, backoff: this.backoff, signal });
  }

  /**
   * Asks a bundle on the session's current turn and returns its handle. Retried while the server is
   * unreachable: the server returns the same pending id for the same still-pending questions, so a
   * retry never asks twice.
   */
  async ask(input: AskInput): Promise<BundleHandle> {
    const body = {
      session_id: input.sessionId,
      questions: input.questions,
      ...(input.taskId !== undefined ? { task_id: input.taskId } : {}),
      ...(input.context !== undefined ? { context: input.context } : {}),
      ...(input.expiresInSeconds !== undefined ? { expires_in_seconds: input.expiresInSeconds } : {}),
      ...(input.routing !== undefined ? { routing: input.routing } : {}),
      ...(input.action !== undefined ? { action: input.action } : {}),
    };
    const { signal } = input;
    const asked = await this.retried(() => this.transport.send(() => this.transport.api.POST('/api/v1/clarification/request', { body, signal }), signal), signal);
    return new BundleHandle(this, asked.pending_id, input.sessionId);
  }

  /** The handle of a bundle asked earlier (by this process or one before it). */
  bundle(pendingId: string): BundleHandle {
    return new BundleHandle(this, pendingId);
  }

  /** The pending id of the newest bundle of the session whose context contains `marker` (see `findBundleByMarker`). */
  findBundle(sessionId: string, marker: string, options: { signal?: AbortSignal } = {}): Promise<string | undefined> {
    const { signal } = options;
    return this.retried(() => findBundleByMarker(this.transport, sessionId, marker, signal), signal);
  }

  /** The bundle and where it stands, read from the server's durable rows. */
  get(pendingId: string, options: { signal?: AbortSignal; attempts?: number } = {}): Promise<BundleView> {
    const { signal } = options;
    return this.retried(() => this.transport.send(() => this.transport.api.GET('/api/v1/clarification/{id}', { params: { path: { id: pendingId } }, signal }), signal), signal, options.attempts);
  }

  /**
   * Waits for the bundle's one outcome, as long as it takes (see `waitForOutcome`). Observing only:
   * it may be called any number of times. A rejection's reason, which the server does not keep on the
   * bundle, is recovered from its audit trail when the wait did not see it live.
   */
  async outcome(pendingId: string, options: { signal?: AbortSignal } = {}): Promise<Outcome> {
    const outcome = await waitForOutcome(this.waitCalls, pendingId, { backoff: this.backoff, signal: options.signal });
    if (outcome.status !== 'rejected' || outcome.reason !== '') return outcome;
    return { ...outcome, reason: await recoverRejectReason(this.transport, pendingId, options.signal) };
  }

  /**
   * For a durable agent, after a restart (or instead of `wait` from the start): waits for the
   * outcome and hands it over exactly once per ledger — a second `resume` of the same bundle, in
   * this process or a later one sharing the ledger, throws ParleyAlreadyResumedError. An answer the
   * server handed off (the successor turn it queued a resume prompt on) is recorded under that
   * hand-off's Idempotency-Key, the same key a re-sent webhook carries.
   */
  async resume(pendingId: string, options: { signal?: AbortSignal } = {}): Promise<ResumedOutcome> {
    if (await this.ledger.get(pendingId)) throw new ParleyAlreadyResumedError(pendingId);
    const outcome = await this.outcome(pendingId, options);
    const handoff = outcome.status === 'answered' ? await findHandoff(this.transport, await this.get(pendingId, options), options.signal) : undefined;
    const entry: LedgerEntry = { pendingId, handoffKey: handoff?.idempotencyKey ?? pendingId, at: new Date().toISOString() };
    if (!(await this.ledger.claim(entry))) throw new ParleyAlreadyResumedError(pendingId);
    return handoff ? { ...outcome, handoff } : outcome;
  }

  /**
   * Answers a bundle — one answer per question, or `{ reject: true, reason }`. Exactly one answer
   * wins on any surface: `claimed` says whether this one did; either way the winner's response is returned.
   */
  async respond(pendingId: string, decision: AnswerInput[] | Rejection, options: { signal?: AbortSignal } = {}): Promise<Resolution> {
    const body = Array.isArray(decision)
      ? { answers: decision.map((answer) => ({ question_id: answer.question_id, selected_options: answer.selected_options ?? [], custom_text: answer.custom_text ?? '' })) }
      : { rejected: true, reject_reason: decision.reason ?? '' };
    const { signal } = options;
    const result: RespondResult = await this.retried(
      () => this.transport.send(() => this.transport.api.POST('/api/v1/clarification/{id}/respond', { params: { path: { id: pendingId } }, body, signal }), signal),
      signal,
    );
    return {
      claimed: result.claimed,
      status: result.status,
      answers: result.response.answers,
      rejected: result.response.rejected,
      rejectReason: result.response.reject_reason,
      ...(result.vote ? { vote: result.vote } : {}),
      receipt: result.receipt,
    };
  }

  /**
   * Checks a receipt offline against this server's published keys (`/.well-known/jwks.json`, fetched
   * once and cached): its signature, its expiry and, given `action`, that it was signed over that action.
   */
  verifyReceipt(receipt: string, options: Omit<VerifyReceiptOptions, 'jwks' | 'jwksUrl'> = {}): Promise<ReceiptVerdict> {
    return verifyReceipt(receipt, { ...options, jwksUrl: new URL('/.well-known/jwks.json', this.url) });
  }

  /**
   * Spends a receipt for the action about to run — at most once across every replica, and only as the
   * identity that asked (this client's token must be the session's agent token or its opener's). Not
   * retried: a lost reply reads `already_redeemed` on a second try, and the executor then does not act.
   */
  async redeemReceipt(receipt: string, options: { action: ReceiptAction; expect?: ReceiptExpectation; signal?: AbortSignal }): Promise<Redemption> {
    const { signal } = options;
    const body = { receipt, action: options.action, ...(options.expect === undefined ? {} : { expect: options.expect }) };
    return (await this.transport.send(() => this.transport.api.POST('/api/v1/receipts/redeem', { body, signal }), signal)) as Redemption;
  }

  /** Cancels a live bundle: its waiters end with `cancelled`. */
  async cancel(pendingId: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    await this.retried(() => this.transport.send(() => this.transport.api.POST('/api/v1/clarification/{id}/cancel', { params: { path: { id: pendingId } }, signal }), signal), signal);
  }

  /** Every pending bundle the caller may answer, oldest first, page by page (the server's keyset cursor). */
  async *pending(query: PendingQuery = {}): AsyncGenerator<PendingBundle, void, undefined> {
    const { signal } = query;
    let cursor = '';
    do {
      const params = {
        query: {
          ...(query.workspaceId ? { workspace_id: query.workspaceId } : {}),
          ...(query.createdSince ? { created_since: new Date(query.createdSince).toISOString() } : {}),
          ...(query.pageSize ? { limit: query.pageSize } : {}),
          ...(cursor ? { cursor } : {}),
        },
      };
      const page = await this.retried(() => this.transport.send(() => this.transport.api.GET('/api/v1/clarification', { params, signal }), signal), signal);
      yield* page.bundles;
      cursor = page.next_cursor;
    } while (cursor !== '');
  }
}
