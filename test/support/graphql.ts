import { type Client, createClient } from 'graphql-ws';
import request from 'supertest';
import WebSocket from 'ws';
import { QuestionEventService } from '#clarification';
import type { TestApp } from './app.js';
import { eventually } from './eventually.js';

/** One GraphQL error as it comes over the wire. */
export interface GqlError {
  message: string;
  path?: Array<string | number>;
  extensions?: { code?: string; [key: string]: unknown };
}

export interface GqlBody<D = Record<string, unknown>> {
  data?: D | null;
  errors?: GqlError[];
}

export interface GqlResult<D = Record<string, unknown>> {
  status: number;
  headers: Record<string, string>;
  body: GqlBody<D>;
}

export interface GqlOptions {
  /** Extra request headers (e.g. a `cookie`). */
  headers?: Record<string, string>;
}

/** POST /graphql through supertest; `bearer` sets `Authorization: Bearer <bearer>`. */
export async function gql<D = Record<string, unknown>>(
  t: Pick<TestApp, 'baseUrl'>,
  query: string,
  variables?: Record<string, unknown>,
  bearer?: string,
  options: GqlOptions = {},
): Promise<GqlResult<D>> {
  let req = request(t.baseUrl).post('/graphql').set('content-type', 'application/json');
  if (bearer) req = req.set('authorization', `Bearer ${bearer}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  const res = await req.send({ query, ...(variables ? { variables } : {}) });
  return { status: res.status, headers: res.headers, body: res.body as GqlBody<D> };
}

/** The data of a successful operation; fails (with the errors in the message) when there were errors. */
export async function gqlData<D = Record<string, unknown>>(
  t: Pick<TestApp, 'baseUrl'>,
  query: string,
  variables?: Record<string, unknown>,
  bearer?: string,
): Promise<D> {
  const result = await gql<D>(t, query, variables, bearer);
  if (result.status !== 200 || result.body.errors || !result.body.data) {
    throw new Error(`GraphQL operation failed (${result.status}): ${JSON.stringify(result.body)}`);
  }
  return result.body.data;
}

/** The single error of a failed operation, with its `extensions.code`. */
export async function gqlError(
  t: Pick<TestApp, 'baseUrl'>,
  query: string,
  variables?: Record<string, unknown>,
  bearer?: string,
): Promise<GqlError & { status: number }> {
  const result = await gql(t, query, variables, bearer);
  const errors = result.body.errors ?? [];
  if (errors.length !== 1) throw new Error(`expected exactly one GraphQL error, got ${JSON.stringify(result.body)}`);
  return { ...(errors[0]), status: result.status };
}

/**
 * The "stream open" signal: resolves once `t` holds exactly `count` open question-event streams. A
 * stream counts from the moment a live event can reach it, so after `openStreams(t, n)` every event
 * produced reaches the n subscriptions; `openStreams(t, 0)` waits for closed ones to be gone.
 */
export function openStreams(t: Pick<TestApp, 'app'>, count: number): Promise<true> {
  const events = t.app.get(QuestionEventService);
  return eventually(() => (events.openStreamCount() === count ? true : undefined), 5000, `${count} open event streams`);
}

// ---------------------------------------------------------------------------------------------
// Subscriptions over graphql-ws (the `graphql-transport-ws` protocol)
// ---------------------------------------------------------------------------------------------

export interface SubscribeOptions {
  variables?: Record<string, unknown>;
  /** The connection_init payload (e.g. `{authorization: 'Bearer …'}`). */
  connectionParams?: Record<string, unknown>;
  /** Headers of the WebSocket upgrade request (e.g. `authorization`, `cookie`). */
  headers?: Record<string, string>;
}

export interface Subscription<T> {
  /** Every `next` payload's data, in arrival order. */
  readonly events: T[];
  /** GraphQL errors in `next` payloads (per-event errors). */
  readonly payloadErrors: GqlError[];
  /** The terminal error of the operation (an `error` message, a failed connection, a close). */
  readonly error: unknown;
  readonly completed: boolean;
  /** Resolves once at least `n` events arrived; rejects on a terminal error or the timeout. */
  waitFor(n: number, timeoutMs?: number): Promise<T[]>;
  /** Resolves with the terminal error (or rejects when the operation completed cleanly or timed out). */
  waitForError(timeoutMs?: number): Promise<unknown>;
  /** Resolves once the server acknowledged the connection (connection_ack). */
  connected: Promise<void>;
  /** Ends the operation and closes the socket. */
  close(): Promise<void>;
}

/** A `ws` WebSocket class that sends `headers` on its upgrade request. */
function webSocketWithHeaders(headers: Record<string, string> | undefined): typeof WebSocket {
  if (!headers || Object.keys(headers).length === 0) return WebSocket;
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  } as typeof WebSocket;
}

export function wsUrl(t: Pick<TestApp, 'baseUrl'>): string {
  return `${t.baseUrl.replace(/^http/, 'ws')}/graphql`;
}

/**
 * Subscribes over a fresh graphql-ws client (one socket per subscription, no retries), collecting
 * every event into `events`.
 */
export function subscribe<T = Record<string, unknown>>(t: Pick<TestApp, 'baseUrl'>, query: string, options: SubscribeOptions = {}): Subscription<T> {
  const events: T[] = [];
  const payloadErrors: GqlError[] = [];
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  let error: unknown;
  let failed = false;
  let completed = false;
  let acked!: () => void;
  let notAcked!: (reason: unknown) => void;
  const connected = new Promise<void>((resolve, reject) => {
    acked = resolve;
    notAcked = reject;
  });
  connected.catch(() => undefined);
  const fail = (reason: unknown) => {
    if (failed || completed) return;
    failed = true;
    error = reason;
    notAcked(reason);
    notify();
  };

  const client: Client = createClient({
    url: wsUrl(t),
    webSocketImpl: webSocketWithHeaders(options.headers),
    ...(options.connectionParams ? { connectionParams: options.connectionParams } : {}),
    lazy: true,
    retryAttempts: 0,
    shouldRetry: () => false,
    on: {
      connected: () => acked(),
      closed: (event) => fail(event),
      error: (reason) => fail(reason),
    },
  });
  const unsubscribe = client.subscribe<T>(
    { query, ...(options.variables ? { variables: options.variables } : {}) },
    {
      next: (value) => {
        if (value.errors) payloadErrors.push(...(value.errors as unknown as GqlError[]));
        if (value.data) events.push(value.data);
        notify();
      },
      error: (reason) => fail(reason),
      complete: () => {
        if (!failed) completed = true;
        notify();
      },
    },
  );

  const until = <R>(settled: () => { value: R } | { error: unknown } | undefined, timeoutMs: number, what: string): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      const check = () => {
        const outcome = settled();
        if (!outcome) return;
        clearTimeout(timer);
        listeners.delete(check);
        if ('value' in outcome) resolve(outcome.value);
        else reject(outcome.error instanceof Error ? outcome.error : new Error(describeError(outcome.error)));
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${what} within ${timeoutMs}ms (received ${events.length} events: ${JSON.stringify(events)})`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });

  return {
    events,
    payloadErrors,
    get error() {
      return error;
    },
    get completed() {
      return completed;
    },
    connected,
    waitFor(n, timeoutMs = 10_000) {
      return until<T[]>(
        () => {
          if (events.length >= n) return { value: events };
          if (failed) return { error: new Error(`subscription failed before ${n} events: ${describeError(error)}`) };
          if (completed) return { error: new Error(`subscription completed after ${events.length} of ${n} events`) };
          return undefined;
        },
        timeoutMs,
        `no ${n} events`,
      );
    },
    waitForError(timeoutMs = 10_000) {
      return until<unknown>(
        () => {
          if (failed) return { value: error };
          if (completed) return { error: new Error('subscription completed without an error') };
          return undefined;
        },
        timeoutMs,
        'no error',
      );
    },
    async close() {
      unsubscribe();
      await client.dispose();
    },
  };
}

/** A readable description of a graphql-ws terminal error (GraphQL errors array, CloseEvent or Error). */
export function describeError(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (Array.isArray(reason)) return JSON.stringify(reason);
  if (reason && typeof reason === 'object' && 'code' in reason) {
    const close = reason as { code: number; reason?: string };
    return `socket closed ${close.code} ${close.reason ?? ''}`.trim();
  }
  return JSON.stringify(reason);
}

/** The GraphQL errors of an `error` message (graphql-ws delivers them as an array). */
export function graphqlErrorsOf(reason: unknown): GqlError[] {
  return Array.isArray(reason) ? (reason as GqlError[]) : [];
}
