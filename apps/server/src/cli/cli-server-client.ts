import { CliUsageError } from './cli-arguments.js';

/** The CLI's `{error, code}` failure of a server call: the server's own REST error body, kept as is. */
export class ServerCallError extends Error {
  constructor(
    message: string,
    readonly publicCode: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface ServerTarget {
  url: string;
  token: string | undefined;
}

/**
 * Where the `questions:*` commands reach the running server, as the terminal user: `--url` or
 * PARLEY_URL (default http://127.0.0.1:$PORT), the user's token from PARLEY_TOKEN. They call the
 * REST API rather than the database, so the user's authorization applies and the CLI never joins
 * the exactly-once core as a process of its own.
 */
export function serverTarget(urlFlag: string | undefined, env: Record<string, string | undefined>): ServerTarget {
  const url = urlFlag ?? env.PARLEY_URL ?? `http://127.0.0.1:${env.PORT ?? '3000'}`;
  if (!/^https?:\/\//.test(url)) throw new CliUsageError(`--url must be an http(s) URL (got "${url}")`);
  return { url: url.replace(/\/+$/, ''), token: env.PARLEY_TOKEN || undefined };
}

export async function callServer(target: ServerTarget, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${target.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ServerCallError(`cannot reach the server at ${target.url} (${(error as Error).message}); set PARLEY_URL or --url`, 'UNAVAILABLE', 0);
  }
  const payload = (await response.json().catch(() => ({}))) as { error?: string; code?: string };
  if (!response.ok) throw new ServerCallError(payload.error ?? `HTTP ${response.status}`, payload.code ?? 'INTERNAL_ERROR', response.status);
  return payload;
}
