import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { RequestBoundaryError, RequestBoundaryErrorCode } from './request-boundary.error.js';
import { findUnstorableText } from './storable-text.js';

export const STATE_CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type OnRequestHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

function carriesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** `application/json`, optionally with `charset=utf-8` (the only encoding the parser reads). */
export function isJsonMediaType(contentType: string): boolean {
  const [type, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value] = parameter.split('=').map((part) => part.trim());
    return name !== 'charset' || value?.replace(/^"(.*)"$/, '$1') === 'utf-8';
  });
}

/**
 * Where chat platforms call in (docs/channels.md). Each request there is authenticated by the
 * platform's signature or secret over its exact bytes, so the connector reads its raw body itself, and
 * Slack's form-encoded interactivity posts are accepted there (a cross-site form cannot sign).
 */
export const CONNECTOR_ROUTE_PREFIX = '/api/v1/connectors/';

export function isConnectorRoute(url: string): boolean {
  return url.startsWith(CONNECTOR_ROUTE_PREFIX);
}

export function isFormMediaType(contentType: string): boolean {
  return contentType.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/**
 * Only JSON bodies are accepted, on every route but the connectors' (above) (CSRF: a cross-site form or text/plain post is a
 * "simple" request a browser sends without asking; JSON is not). Refused: a body without a JSON
 * Content-Type, and a state-changing request declaring another Content-Type even when empty.
 */
export const jsonOnlyHook: OnRequestHook = (request, _reply, done) => {
  const contentType = request.headers['content-type'];
  const declaresOther = contentType !== undefined && !isJsonMediaType(contentType) && !(isConnectorRoute(request.url) && isFormMediaType(contentType));
  const refused = carriesBody(request) ? contentType === undefined || declaresOther : declaresOther && STATE_CHANGING_METHODS.has(request.method);
  if (!refused) return done();
  const got = contentType === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(contentType.slice(0, 100))}`;
  done(new RequestBoundaryError(RequestBoundaryErrorCode.UnsupportedMediaType, `only application/json request bodies are accepted (got ${got})`));
};

/** Route parameters and query strings PostgreSQL could not compare or store are refused before any guard reads them. */
export const storableUrlHook: OnRequestHook = (request, _reply, done) => {
  const found = findUnstorableText(request.params, 'params') ?? findUnstorableText(request.query, 'query');
  done(found === undefined ? undefined : new RequestBoundaryError(RequestBoundaryErrorCode.UnstorableText, found));
};

/** Whether the request asks to become a WebSocket (a GraphQL subscription). */
export function isWebSocketUpgrade(request: FastifyRequest): boolean {
  return request.headers.upgrade?.toLowerCase() === 'websocket';
}

/**
 * A WebSocket upgrade refused before its route (a hook's 4xx) leaves the socket open once its answer
 * is written — the WebSocket plugin only ends the upgrades its own hooks have seen — so it is ended here.
 */
export function endRefusedUpgradeHook(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (isWebSocketUpgrade(request)) request.raw.socket.destroy();
  done();
}
