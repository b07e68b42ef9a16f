/**
 * The load generator, in a worker thread: its HTTP clients and its JSON work run on their own event
 * loop, not on the one of the application under test (which runs in the main thread). Requests come
 * as messages; each answer is one message back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { Answerer, type AnswerOutcome, runConcurrently, type Surface } from './answer-clients.js';
import { CLAIM_STATEMENT } from './claim-statement.js';

export interface WorkerSetup {
  baseUrl: string;
  bearer: string;
  databaseUrl: string;
  concurrency: number;
}

export interface ReplayStatement {
  sql: string;
  parameters: unknown[];
  /** The prepared statement's name the app sent it under, if any (replayed named too). */
  name?: string;
}

export type LoadRequest =
  | { op: 'throughput'; surface: Surface; pendingIds: string[]; concurrency: number }
  | { op: 'raw'; transactions: ReplayStatement[][]; concurrency: number }
  | { op: 'burst'; jobs: { surface: Surface; pendingId: string }[] }
  | { op: 'close' };

export interface LoadResponse {
  elapsedMs: number;
  outcomes: AnswerOutcome[];
  /** Per job of a burst: its own latency. */
  latencies: number[];
}

const setup = workerData as WorkerSetup;
const answerer = await Answerer.connect(setup.baseUrl, setup.bearer, setup.concurrency);
const pool = new pg.Pool({ connectionString: setup.databaseUrl, max: setup.concurrency });
pool.on('error', () => undefined);

async function handle(request: LoadRequest): Promise<LoadResponse> {
  switch (request.op) {
    case 'throughput': {
      const outcomes: AnswerOutcome[] = [];
      const elapsedMs = await runConcurrently(request.pendingIds, request.concurrency, async (pendingId) => {
        outcomes.push(await answerer.answer(request.surface, pendingId));
      });
      return { elapsedMs, outcomes, latencies: [] };
    }
    case 'raw': {
      const outcomes: AnswerOutcome[] = [];
      const elapsedMs = await runConcurrently(request.transactions, request.concurrency, async (statements) => {
        const client = await pool.connect();
        try {
          let claimed = false;
          for (const statement of statements) {
            const result = await client.query({ name: statement.name, text: statement.sql, values: statement.parameters });
            if (CLAIM_STATEMENT.test(statement.sql)) claimed = (result.rowCount ?? 0) > 0;
          }
          outcomes.push({ claimed });
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          outcomes.push({ claimed: false, error: `raw: ${error instanceof Error ? error.message : String(error)}` });
        } finally {
          client.release();
        }
      });
      return { elapsedMs, outcomes, latencies: [] };
    }
    case 'burst': {
      const started = performance.now();
      const latencies: number[] = [];
      const outcomes = await Promise.all(
        request.jobs.map(async (job, index) => {
          const outcome = await answerer.answer(job.surface, job.pendingId);
          latencies[index] = performance.now() - started;
          return outcome;
        }),
      );
      return { elapsedMs: performance.now() - started, outcomes, latencies };
    }
    case 'close':
      await answerer.close();
      await pool.end();
      return { elapsedMs: 0, outcomes: [], latencies: [] };
  }
}

parentPort?.on('message', (request: LoadRequest) => {
  void handle(request).then((response) => parentPort?.postMessage(response));
});
parentPort?.postMessage('ready');
