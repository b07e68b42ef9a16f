import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/** `mcp-http`: the JSON-RPC POST an SDK client sends to `/mcp`, over the plain client REST uses (no SDK client cost). */
export type Surface = 'rest' | 'graphql' | 'mcp' | 'mcp-http';
export const SURFACES: readonly Surface[] = ['rest', 'graphql', 'mcp'];

/** The seeded bundles have one question, q1, whose first option is q1_yes (bench/support/seed.ts). */
export const ANSWERS = [{ question_id: 'q1', selected_options: ['q1_yes'], custom_text: '' }];
const GRAPHQL_ANSWERS = [{ questionId: 'q1', selectedOptions: ['q1_yes'], customText: '' }];
const ANSWER_MUTATION = `mutation Answer($pendingId: String!, $answers: [AnswerInput!]!) { answerQuestion(pendingId: $pendingId, answers: $answers) { claimed status } }`;

export interface AnswerOutcome {
  /** Whether this call won the bundle (R10 `claimed`). */
  claimed: boolean;
  /** undefined when the call succeeded (winner or loser told the winner's answer). */
  error?: string;
}

export interface HttpResult {
  status: number;
  body: string;
}

/** A kept-alive socket found closed by the server as a request went out on it. */
class StaleSocketError extends Error {}

/** A plain keep-alive HTTP client: light on the client side, so the server's cost dominates. */
export class HttpClient {
  readonly agent: http.Agent;

  constructor(
    readonly baseUrl: string,
    sockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  /**
   * One request. A kept-alive socket the server closed (its keep-alive timeout) just as the request
   * went out on it fails with ECONNRESET before the server read anything: sent again once on a new
   * socket, as Node's documentation of `request.reusedSocket` advises.
   */
  async request(method: string, path: string, bearer: string | undefined, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<HttpResult> {
    try {
      return await this.send(method, path, bearer, body, extraHeaders);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.send(method, path, bearer, body, extraHeaders);
    }
  }

  private send(method: string, path: string, bearer: string | undefined, body: unknown, extraHeaders: Record<string, string>): Promise<HttpResult> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = { ...extraHeaders };
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const req = http.request(`${this.baseUrl}${path}`, { method, headers, agent: this.agent }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      });
      req.on('error', (error: NodeJS.ErrnoException) => reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleSocketError(error.message) : error));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** What the SDK's Streamable HTTP client sends with every request after initialize. */
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };

/** Answers bundles as a person's client would, over one of the three surfaces, with one bearer. */
export class Answerer {
  private constructor(
    private readonly http: HttpClient,
    private readonly bearer: string,
    private readonly mcp: Client[],
  ) {}

  private next = 0;

  static async connect(baseUrl: string, bearer: string, concurrency: number): Promise<Answerer> {
    const mcp: Client[] = [];
    for (let i = 0; i < Math.min(concurrency, 16); i++) {
      const client = new Client({ name: 'parley-bench', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
      mcp.push(client);
    }
    return new Answerer(new HttpClient(baseUrl, concurrency), bearer, mcp);
  }

  async answer(surface: Surface, pendingId: string): Promise<AnswerOutcome> {
    try {
      switch (surface) {
        case 'rest': {
          const res = await this.http.request('POST', `/api/v1/clarification/${pendingId}/respond`, this.bearer, { answers: ANSWERS });
          if (res.status !== 200) return { claimed: false, error: `REST ${res.status} ${res.body.slice(0, 200)}` };
          return { claimed: (JSON.parse(res.body) as { claimed: boolean }).claimed };
        }
        case 'graphql': {
          const res = await this.http.request('POST', '/graphql', this.bearer, { query: ANSWER_MUTATION, variables: { pendingId, answers: GRAPHQL_ANSWERS } });
          const body = JSON.parse(res.body) as { data?: { answerQuestion?: { claimed: boolean } }; errors?: unknown[] };
          if (res.status !== 200 || body.errors || !body.data?.answerQuestion) return { claimed: false, error: `GraphQL ${res.status} ${res.body.slice(0, 200)}` };
          return { claimed: body.data.answerQuestion.claimed };
        }
        case 'mcp': {
          const client = this.mcp[this.next++ % this.mcp.length];
          const result = await client.callTool({ name: 'answer_question_kandev', arguments: { pending_id: pendingId, answers: ANSWERS } });
          if (result.isError) return { claimed: false, error: `MCP ${JSON.stringify(result.content).slice(0, 200)}` };
          const structured = result.structuredContent as { claimed?: boolean } | undefined;
          return { claimed: structured?.claimed === true };
        }
        case 'mcp-http': {
          const call = { jsonrpc: '2.0', id: this.next++, method: 'tools/call', params: { name: 'answer_question_kandev', arguments: { pending_id: pendingId, answers: ANSWERS } } };
          const res = await this.http.request('POST', '/mcp', this.bearer, call, MCP_HEADERS);
          const reply = JSON.parse(res.body) as { result?: { isError?: boolean; structuredContent?: { claimed?: boolean } } };
          if (res.status !== 200 || !reply.result || reply.result.isError) return { claimed: false, error: `MCP ${res.status} ${res.body.slice(0, 200)}` };
          return { claimed: reply.result.structuredContent?.claimed === true };
        }
      }
    } catch (error) {
      return { claimed: false, error: `${surface}: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  async close(): Promise<void> {
    this.http.close();
    await Promise.all(this.mcp.map((client) => client.close()));
  }
}

/** Runs `work` over `items` with `concurrency` loops; returns the wall time in ms. */
export async function runConcurrently<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++];
        await work(item);
      }
    }),
  );
  return performance.now() - started;
}
