import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { errorFromResponse, ParleyAbortedError, ParleyError, ParleyUnreachableError } from './parley.errors.js';

/** What every openapi-fetch call resolves to. */
interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export type ApiClient = Client<paths>;

/** The typed REST client (openapi-fetch over the generated `paths`) and the one place HTTP outcomes become typed errors. */
export class Transport {
  readonly api: ApiClient;

  constructor(
    readonly baseUrl: string,
    token: string | undefined,
    fetchImpl: typeof globalThis.fetch | undefined,
  ) {
    this.api = createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(fetchImpl ? { fetch: (request: Request) => fetchImpl(request) } : {}),
    });
  }

  /** Runs one call: its data on 2xx, else the typed error; a network failure is ParleyUnreachableError. */
  async send<T>(call: () => Promise<FetchResult<T>>, signal?: AbortSignal): Promise<T> {
    let result: FetchResult<T>;
    try {
      result = await call();
    } catch (error) {
      if (signal?.aborted) throw new ParleyAbortedError();
      if (error instanceof ParleyError) throw error;
      throw new ParleyUnreachableError(this.baseUrl, error);
    }
    if (result.response.ok) return result.data as T;
    throw errorFromResponse(result.response.status, result.error, result.response.headers);
  }
}
