/** Every request of the page: same origin, the session cookie always sent (W1), JSON only. */

export class SignedOutError extends Error {
  constructor() {
    super('signed out');
  }
}

export class GraphqlError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function requestJson(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(path, {
    method,
    credentials: 'include',
    headers: { ...headers, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export async function errorMessage(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: unknown };
  return typeof body.error === 'string' ? body.error : `${response.status} ${response.statusText}`;
}

interface GraphqlBody<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

/** A GraphQL operation over HTTP; UNAUTHENTICATED ⇒ SignedOutError, any other error ⇒ GraphqlError. */
export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await requestJson('POST', '/graphql', { query, variables });
  if (response.status === 401) throw new SignedOutError();
  const body = (await response.json()) as GraphqlBody<T>;
  const [error] = body.errors ?? [];
  if (error) throw new GraphqlError(error.extensions?.code ?? 'INTERNAL_ERROR', error.message);
  if (!body.data) throw new GraphqlError('INTERNAL_ERROR', `GraphQL answered ${response.status} without data`);
  return body.data;
}
