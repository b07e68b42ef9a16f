import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { documentRefusal } from './document-limits.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a POST /graphql body is not `{query, variables, operationName}`, or undefined when it is. */
function requestShapeRefusal(body: unknown): Error | undefined {
  if (!isObject(body)) return documentRefusal('the request body must be a JSON object {query, variables, operationName}');
  if (typeof body.query !== 'string') return documentRefusal('query must be a string holding a GraphQL document');
  if (body.variables !== undefined && body.variables !== null && !isObject(body.variables)) {
    return documentRefusal('variables must be a JSON object');
  }
  if (body.operationName !== undefined && body.operationName !== null && typeof body.operationName !== 'string') {
    return documentRefusal('operationName must be a string');
  }
  return undefined;
}

/**
 * A POST /graphql body must be `{query: string, variables?: object|null, operationName?: string|null}`
 * (GraphQL over HTTP). Anything else is a 400 naming the field — Mercurius would otherwise take a
 * non-string `query` for a ready-made document and fail inside the validator (a 500). A callback hook:
 * the check needs no Promise.
 */
export function checkRequestShape(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  done(request.method === 'POST' ? requestShapeRefusal(request.body) : undefined);
}
