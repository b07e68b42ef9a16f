import { type DocumentNode, type GraphQLFormattedError, parse } from 'graphql';
import type WebSocket from 'ws';

/** The checks of a subscribe message's document; throws what the subscriber is told. */
export type SubscribeCheck = (document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined) => void;

export interface SubscribeLimits {
  /** Runs on the raw document first: the refusals that must come before parsing. */
  checkSource(query: string): void;
  checkDocument: SubscribeCheck;
}

interface SubscribeMessage {
  id?: unknown;
  type?: unknown;
  payload?: { query?: unknown; variables?: unknown; operationName?: unknown };
}

function refusalOf(raw: unknown, limits: SubscribeLimits): { id: unknown; error: GraphQLFormattedError } | undefined {
  let message: SubscribeMessage;
  try {
    message = JSON.parse(String(raw)) as SubscribeMessage;
  } catch {
    return undefined;
  }
  const query = message.payload?.query;
  // `subscribe` (graphql-transport-ws) and `start` (the legacy protocol) carry a document.
  if ((message.type !== 'subscribe' && message.type !== 'start') || typeof query !== 'string') return undefined;
  try {
    limits.checkSource(query);
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return undefined; // a syntax error: Mercurius reports it
    }
    const { variables, operationName } = message.payload ?? {};
    limits.checkDocument(
      document,
      typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : undefined,
      typeof operationName === 'string' ? operationName : undefined,
    );
    return undefined;
  } catch (error) {
    const { message: text, extensions } = error as { message: string; extensions?: Record<string, unknown> };
    return { id: message.id, error: { message: text, ...(extensions ? { extensions } : {}) } };
  }
}

/**
 * Mercurius parses a subscribe message's document before any of its hooks run, so a document
 * nested thousands deep overflows the parser's stack there, and the variables never reach a hook.
 * This puts the same limits as on HTTP (tokens, nesting, root lists, cost) in front of it: a
 * refused subscribe is answered with an `error` message for its id and never reaches Mercurius.
 */
export function guardSubscribeMessages(socket: WebSocket, limits: SubscribeLimits): void {
  const emit = socket.emit.bind(socket);
  socket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event === 'message') {
      const refusal = refusalOf(args[0], limits);
      if (refusal) {
        socket.send(JSON.stringify({ id: refusal.id, type: 'error', payload: [refusal.error] }));
        return true;
      }
    }
    return emit(event, ...args);
  }) as typeof socket.emit;
}
