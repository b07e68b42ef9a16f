import type { FastifyRequest } from 'fastify';
import { documentRefusal } from './document-limits.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A POST /graphql body must be `{query: string, variables?: object|null, operationName?: string|null}`
 * (GraphQL over HTTP). Anything else is a 400 naming the field — Mercurius would otherwise take a
 * non-string `query` for a ready-made document and fail inside the validator (a 500).
 */
export async function checkRequestShape(request: FastifyRequest): Promise<void> {
  if (request.method !== 'POST') return;
  const body: unknown = request.body;
  if (!isObject(body)) throw documentRefusal('the request body must be a JSON object {query, variables, operationName}');
  if (typeof body.query !== 'string') throw documentRefusal('query must be a string holding a GraphQL document');
  if (body.variables !== undefined && body.variables !== null && !isObject(body.variables)) {
    throw documentRefusal('variables must be a JSON object');
  }
  if (body.operationName !== undefined && body.operationName !== null && typeof body.operationName !== 'string') {
    throw documentRefusal('operationName must be a string');
  }
}
