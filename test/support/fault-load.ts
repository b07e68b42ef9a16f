import { setTimeout as delay } from 'node:timers/promises';
import { connectMcp, type McpConnection } from './mcp.js';

/**
 * A few concurrent clients asking, listing and answering through REST, GraphQL and MCP against a
 * spawned server, recording what each request came back as and when — so a fault test can tell what
 * the service answered before, during and after a database fault.
 */

/** `command`: POST /api/v1/commands, which fault tests drive alongside the load. */
export type Operation = 'ask' | 'answer' | 'graphql' | 'mcp' | 'command';

/** `'ok'`: served; `'unavailable'`: the surface's "database unavailable" answer; any other text describes a defect. */
export type Verdict = string;

export interface Outcome {
  op: Operation;
  verdict: Verdict;
  startedAt: number;
  endedAt: number;
}

export const UNAVAILABLE_MESSAGE = 'the database is unavailable; retry shortly';
/** An answer whose claim sent its COMMIT as the database went away: the same retryable 503, other words. */
const OUTCOME_UNKNOWN_MESSAGE = 'the outcome is not known; retry to learn it';
const PACE_MS = 40;
/** Far above any bound the server has: a request still open after it counts as hanging. */
const HANG_MS = 90_000;

const QUESTIONS = (n: number) => [{ id: 'q', prompt: `Proceed with step ${n}?`, options: [{ option_id: 'yes', label: 'Yes' }, { option_id: 'no', label: 'No' }] }];

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function restVerdict(response: Response, served: (body: Record<string, unknown>) => boolean): Promise<Verdict> {
  const text = await response.text();
  const body = parseObject(text);
  if (!body) return `${response.status} non-JSON body: ${text.slice(0, 200)}`;
  const unavailable = body.error === UNAVAILABLE_MESSAGE || (body.error === OUTCOME_UNKNOWN_MESSAGE && body.code === 'UNAVAILABLE');
  if (response.status === 503 && unavailable && response.headers.get('retry-after') !== null) return 'unavailable';
  if (response.status === 200 && served(body)) return 'ok';
  return `${response.status} ${text.slice(0, 300)}`;
}

async function graphqlVerdict(response: Response): Promise<Verdict> {
  const text = await response.text();
  const body = (parseObject(text) ?? {}) as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
  if (response.status === 200 && !body.errors && body.data) return 'ok';
  const codes = (body.errors ?? []).map((error) => error.extensions?.code);
  if (response.status === 503 && codes.length > 0 && codes.every((code) => code === 'UNAVAILABLE')) return 'unavailable';
  return `${response.status} ${text.slice(0, 300)}`;
}

function mcpErrorVerdict(error: unknown): Verdict {
  const { code, message } = error as { code?: unknown; message?: string };
  // The guard refused the HTTP request itself: the REST error body, status 503.
  if (code === 503 && message?.includes(UNAVAILABLE_MESSAGE)) return 'unavailable';
  return `MCP transport error ${String(code)}: ${String(message).slice(0, 300)}`;
}

class Client {
  /** The bundle this client asked last: answered until that succeeds, then (a replay) on every round. */
  private last: string | undefined;
  private needsAsk = true;
  private asked = 0;
  private mcp: McpConnection | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly bearer: string,
    private readonly sessionId: string,
    private readonly record: (outcome: Outcome) => void,
  ) {}

  async run(running: () => boolean): Promise<void> {
    this.mcp = await connectMcp(this.baseUrl, { bearer: this.bearer });
    try {
      while (running()) {
        if (this.needsAsk) await this.timed('ask', () => this.ask());
        await this.timed('graphql', () => this.listGraphql());
        await this.timed('mcp', () => this.listMcp());
        // Once answered, answering the same bundle again replays the winner: the answer path stays exercised.
        if (this.last) await this.timed('answer', () => this.answer(this.last as string));
        await delay(PACE_MS);
      }
    } finally {
      await this.mcp.close().catch(() => undefined);
    }
  }

  private async timed(op: Operation, work: () => Promise<Verdict>): Promise<void> {
    const startedAt = Date.now();
    const verdict = await work().catch((error: unknown) => `${op} failed: ${String(error)}`);
    this.record({ op, verdict, startedAt, endedAt: Date.now() });
  }

  private post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.bearer}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(HANG_MS),
    });
  }

  private async ask(): Promise<Verdict> {
    this.asked += 1;
    const response = await this.post('/api/v1/clarification/request', { session_id: this.sessionId, questions: QUESTIONS(this.asked) });
    return restVerdict(response, (body) => {
      if (typeof body.pending_id !== 'string') return false;
      this.last = body.pending_id;
      this.needsAsk = false;
      return true;
    });
  }

  private async answer(pendingId: string): Promise<Verdict> {
    const response = await this.post(`/api/v1/clarification/${pendingId}/respond`, {
      answers: [{ question_id: 'q', selected_options: ['yes'], custom_text: '' }],
    });
    return restVerdict(response, (body) => {
      const served = body.success === true && (body.response as { answers?: unknown[] } | undefined)?.answers?.length === 1;
      if (served) this.needsAsk = true;
      return served;
    });
  }

  private async listGraphql(): Promise<Verdict> {
    return graphqlVerdict(await this.post('/graphql', { query: '{ pendingQuestions(first: 5) { count } tasks { id } }' }));
  }

  private async listMcp(): Promise<Verdict> {
    try {
      const outcome = await (this.mcp as McpConnection).call('list_pending_questions_kandev', { limit: 5 });
      if (!outcome.isError) return 'ok';
      const { code } = JSON.parse(outcome.text) as { code: string };
      return code === 'UNAVAILABLE' ? 'unavailable' : `MCP tool error ${outcome.text.slice(0, 300)}`;
    } catch (error) {
      return mcpErrorVerdict(error);
    }
  }
}

/** Clients (one per session) running until `stop()`, which returns every outcome in start order. */
export class MixedLoad {
  private readonly outcomes: Outcome[] = [];
  private running = false;
  private clients: Array<Promise<void>> = [];

  constructor(
    private readonly baseUrl: string,
    private readonly bearer: string,
    private readonly sessionIds: string[],
  ) {}

  start(): void {
    this.running = true;
    this.clients = this.sessionIds.map((sessionId) =>
      new Client(this.baseUrl, this.bearer, sessionId, (outcome) => this.outcomes.push(outcome)).run(() => this.running),
    );
  }

  async stop(): Promise<Outcome[]> {
    this.running = false;
    await Promise.all(this.clients);
    return [...this.outcomes].sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Outcomes so far (for polling: "a request of each kind succeeded after the fault"). */
  snapshot(): readonly Outcome[] {
    return this.outcomes;
  }
}
